/**
 * Port declarations: the typed inputs and outputs of a component.
 *
 * Mirrors the Go `module.Port` (runtime-spec §1.3): name, label, source (output) or target (input),
 * position, the data shape (here a TypeBox schema), its default value ("configuration") and, for
 * source ports, an optional response shape.
 */
import type { Static, TSchema } from "typebox";
import { Value } from "typebox/value";
import { Position as WirePosition } from "./api/constants.ts";

/** Where a port's handle sits on the node in the editor. Wire values in {@link POSITION_WIRE}. */
export type Position = "top" | "right" | "bottom" | "left";

/** Wire encoding of {@link Position}: Top=0, Right=1, Bottom=2, Left=3 (runtime-spec §1.3). */
export const POSITION_WIRE: Readonly<Record<Position, WirePosition>> = Object.freeze({
  top: WirePosition.Top,
  right: WirePosition.Right,
  bottom: WirePosition.Bottom,
  left: WirePosition.Left,
});

/** System port names (runtime-spec §1.4). They never reach `handle`; the runner dispatches them to hooks. */
export const SystemPort = Object.freeze({
  reconcile: "_reconcile",
  control: "_control",
  settings: "_settings",
  client: "_client",
  identity: "_identity",
} as const);

/** The conventional business error port (not a system port, runtime-spec §1.4). */
export const ERROR_PORT = "error";

/** True for any port name starting with `_` (runtime-spec §1.4: treated as a system port). */
export function isSystemPort(name: string): boolean {
  return name.charCodeAt(0) === 95; // "_"
}

/**
 * One declared port. `N` is the literal port name, `T` the TypeBox schema of its data, `Src` whether
 * it is a source (output) port.
 */
export interface PortSpec<N extends string = string, T extends TSchema = TSchema, Src extends boolean = boolean> {
  /** Programmatic name, lowercase by convention (e.g. `"in"`, `"out_a"`, `"_settings"`). */
  readonly name: N;
  /** Human label shown in the editor. */
  readonly label: string;
  /** true = output port the component emits on; false = input port (runtime-spec §1.3 `Source`). */
  readonly source: Src;
  /** Editor position. */
  readonly position: Position;
  /**
   * TypeBox schema of the port data. Every incoming hop is decoded into it as the Go runtime decodes
   * into a Go struct (zero values for missing fields, unknown keys dropped, type mismatches fail;
   * src/runtime/schema/decode.ts), and it is published as the port's platform schema.
   */
  readonly schema: T;
  /**
   * A JSON Schema published verbatim instead of one generated from {@link schema} — for shapes known
   * only at runtime (runtime-spec §1.3 `Schema`). Incoming data is still decoded with `schema`.
   */
  readonly rawSchema?: object;
  /** Default/current value of the port data (runtime-spec §1.3 `Configuration`). */
  readonly configuration: Static<T> | undefined;
  /** Shape of the synchronous reply expected on this source port (runtime-spec §1.3 `ResponseConfiguration`). */
  readonly responseSchema?: TSchema;
}

/** Any port, types erased. */
export type AnyPort = PortSpec<string, TSchema, boolean>;

/** Options shared by {@link target} and {@link source}. */
export interface PortOptions<T extends TSchema> {
  /** Editor label; defaults to the port name. */
  label?: string;
  /** Editor position; defaults to `left` for targets, `right` for sources, `top` for system ports. */
  position?: Position;
  /** Default data; defaults to the value TypeBox creates from the schema's `default`s. */
  default?: Static<T>;
  /** A JSON Schema to publish verbatim (see {@link PortSpec.rawSchema}). */
  rawSchema?: object;
}

function defaultOf<T extends TSchema>(schema: T, given: Static<T> | undefined): Static<T> | undefined {
  if (given !== undefined) return given;
  try {
    return Value.Create(schema) as Static<T>;
  } catch {
    return undefined;
  }
}

/** Declares an input (target) port named `name` whose data has the shape `schema`. runtime-spec §1.3. */
export function target<const N extends string, T extends TSchema>(name: N, schema: T, options: PortOptions<T> = {}): PortSpec<N, T, false> {
  const spec: PortSpec<N, T, false> = {
    name,
    label: options.label ?? name,
    source: false,
    position: options.position ?? (isSystemPort(name) ? "top" : "left"),
    schema,
    configuration: defaultOf(schema, options.default),
    ...(options.rawSchema ? { rawSchema: options.rawSchema } : {}),
  };
  return spec;
}

/**
 * Declares an output (source) port named `name` whose data has the shape `schema`; `response` is the
 * shape of the reply a blocking caller expects back (runtime-spec §1.3 `ResponseConfiguration`).
 */
export function source<const N extends string, T extends TSchema>(
  name: N,
  schema: T,
  options: PortOptions<T> & { response?: TSchema } = {},
): PortSpec<N, T, true> {
  const spec: PortSpec<N, T, true> = {
    name,
    label: options.label ?? name,
    source: true,
    position: options.position ?? (isSystemPort(name) ? "top" : "right"),
    schema,
    configuration: defaultOf(schema, options.default),
    ...(options.rawSchema ? { rawSchema: options.rawSchema } : {}),
    ...(options.response ? { responseSchema: options.response } : {}),
  };
  return spec;
}
