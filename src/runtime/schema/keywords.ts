/**
 * The TinySystems platform's JSON Schema extension keywords, and typed helpers to set them on a
 * TypeBox schema.
 *
 * TypeBox 1.x keeps unknown options on the schema object as-is (`Type.String({ configurable: true })`
 * emits `{"type":"string","configurable":true}`), so these helpers only add type-checking and a
 * readable call site; they never change what TypeBox emits. Rule source: runtime-spec §10.1 (custom
 * scalar tags copied verbatim; `enumTitles` an array), Go `pkg/schema/json.go`.
 */
import type { TSchema } from "typebox";

/**
 * Keywords the platform editor reads and the validator ignores (annotation-only). `path` and
 * `propertyOrder` are written by {@link toPlatformSchema}; the rest are authored.
 * Source: runtime-spec §10.1 (`scalarCustomProps`, `arrayCustomProps`, `path`).
 */
export const PLATFORM_KEYWORDS = [
  "configurable",
  "shared",
  "readonly",
  "enumTitles",
  "requiredWhen",
  "optionalWhen",
  "colSpan",
  "tab",
  "align",
  "language",
  "propertyOrder",
  "path",
] as const;

/** One platform extension keyword name. */
export type PlatformKeyword = (typeof PLATFORM_KEYWORDS)[number];

/**
 * Typed form of the platform keywords an author may set in TypeBox options
 * (runtime-spec §10.1). All optional; unknown keys still pass through TypeBox untouched.
 */
export interface PlatformOptions {
  /** The user may author this field's schema on the node (an "any" the editor lets them shape). */
  configurable?: boolean;
  /** The field's schema is shared with connected nodes (e.g. router route names). */
  shared?: boolean;
  /** Shown but not editable in the editor (lowercase, unlike JSON Schema's `readOnly`). */
  readonly?: boolean;
  /** Labels shown for each `enum` value, same order. */
  enumTitles?: string[];
  /** Editor condition under which the field becomes required (platform expression string). */
  requiredWhen?: string;
  /** Editor condition under which the field becomes optional (platform expression string). */
  optionalWhen?: string;
  /** Grid columns the field spans in the editor form. */
  colSpan?: string | number;
  /** Editor tab the field is placed on. */
  tab?: string;
  /** Editor alignment hint. */
  align?: string;
  /** Code editor language when `format` is `code`. */
  language?: string;
  /** UI format hint (`textarea`, `button`, `code`, `date-time`, …); never asserted by validation. */
  format?: string;
  /** Human label of the field. */
  title?: string;
  /** Help text of the field. */
  description?: string;
}

/**
 * Returns a copy of `schema` with the platform `options` set, keeping TypeBox's static type.
 * Equivalent to passing the options to the TypeBox builder; useful on schemas built elsewhere.
 * Example: `mark(Type.Unknown(), { configurable: true, title: "Context" })`.
 */
export function mark<T extends TSchema>(schema: T, options: PlatformOptions): T {
  // Object spread drops TypeBox's non-enumerable `~kind`/`~optional` markers, so copy descriptors.
  const copy = Object.create(Object.getPrototypeOf(schema), Object.getOwnPropertyDescriptors(schema)) as T;
  return Object.assign(copy, options);
}

/** `mark(schema, { configurable: true })`: the user may author this field's shape (runtime-spec §10.1). */
export function configurable<T extends TSchema>(schema: T): T {
  return mark(schema, { configurable: true });
}

/** `mark(schema, { shared: true })`: this field's schema is shared with connected nodes (runtime-spec §10.1). */
export function shared<T extends TSchema>(schema: T): T {
  return mark(schema, { shared: true });
}

/**
 * Marks a field whose Go type is an unnamed `any` (`interface{}` written in place, as in the SDK's
 * `module.ErrorMessage.Context`): Go's reflector keeps such a field inline even when it is
 * `configurable`, where a named type (`type Context any`) becomes a `$defs` entry. An enumerable
 * symbol key: spreads keep it, JSON and the published schema never show it.
 */
export const GO_UNNAMED: unique symbol = Symbol.for("tinyhost.schema.goUnnamed");

/** `schema` marked {@link GO_UNNAMED}: published inline, as Go publishes an unnamed `any` field. */
export function unnamed<T extends TSchema>(schema: T): T {
  const copy = Object.create(Object.getPrototypeOf(schema), Object.getOwnPropertyDescriptors(schema)) as T;
  Object.defineProperty(copy, GO_UNNAMED, { value: true, enumerable: true });
  return copy;
}
