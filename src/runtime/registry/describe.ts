/**
 * A component as the platform lists it: the entry shape of `TinyModule.status.components[]`
 * (runtime-spec §5.2) with each port's schema as a platform schema object (the status writer
 * base64-encodes it; `tinyhost components --json` prints it as-is).
 */
import type { ComponentDefinition } from "../../core/component.ts";
import { POSITION_WIRE, type AnyPort } from "../../core/ports.ts";
import { toPlatformSchema, type PlatformSchema } from "../schema/platform.ts";
import type { JsonSchemaObject } from "../schema/json.ts";

/** System ports left out of listings, as TinyModule status does (runtime-spec §5.2). */
export const UNLISTED_PORTS: readonly string[] = ["_reconcile", "_client", "_identity"];

/** One listed port. */
export interface PortDescription {
  /** Programmatic name, e.g. `in`, `_settings`. */
  name: string;
  /** Editor label. */
  label: string;
  /** true = output port (runtime-spec §1.3). */
  source: boolean;
  /** Wire position: Top=0, Right=1, Bottom=2, Left=3 (runtime-spec §1.3). */
  position: number;
  /** The port's platform schema (runtime-spec §10.1), or the port's verbatim `rawSchema`. */
  schema: PlatformSchema | JsonSchemaObject;
}

/** One listed component (`TinyModule.status.components[]` shape, runtime-spec §5.2). */
export interface ComponentDescription {
  name: string;
  description: string;
  info: string;
  tags: string[];
  ports: PortDescription[];
}

/**
 * Describes a component from the ports of a fresh instance (default settings), skipping
 * {@link UNLISTED_PORTS}. A port's `rawSchema`, when set, is published instead of the generated
 * schema (Go ignores it here, runtime-spec §16.21; see docs/compatibility.md "schemas").
 * @throws whatever the component's `ports()` throws.
 */
export function describeComponent(definition: ComponentDefinition): ComponentDescription {
  const { name, description, info, tags } = definition.info;
  return {
    name,
    description,
    info,
    tags: [...(tags ?? [])],
    ports: definition
      .ports()
      .filter((p) => !UNLISTED_PORTS.includes(p.name))
      .map(describePort),
  };
}

/** One port's listing entry; see {@link describeComponent}. */
export function describePort(port: AnyPort): PortDescription {
  return {
    name: port.name,
    label: port.label,
    source: port.source,
    position: POSITION_WIRE[port.position],
    schema: (port.rawSchema as JsonSchemaObject | undefined) ?? portSchema(port),
  };
}

/**
 * The generated platform schema of a port, its root def named after the schema's `$id` or, without
 * one, after the port (`in` → `In`, `_settings` → `Settings`), like Go's type-named roots.
 */
export function portSchema(port: AnyPort): PlatformSchema {
  return toPlatformSchema(port.schema, port.configuration, port.name.replace(/^_+/, "") || "Root");
}
