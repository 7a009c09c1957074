/**
 * Port schemas: TypeBox → platform JSON Schema as the Go SDK publishes it (runtime-spec §10.1), and
 * decoding of port data with Go's semantics (zero values, unknown keys dropped, type mismatches
 * fail). One import for the rest of the runtime.
 */
export { toPlatformSchema, portPlatformSchema, schemaToBase64, type PlatformSchema } from "./platform.ts";
export { compilePortDecoder, type DecodeOptions, type DecodeOutcome, type PortDecoder, type ValidationIssue } from "./decode.ts";
export { SchemaCompileError } from "./strict.ts";
export { PLATFORM_KEYWORDS, mark, configurable, shared, type PlatformKeyword, type PlatformOptions } from "./keywords.ts";
export { inferSchema, inferProperties } from "./infer.ts";
export { titleCase, definitionName } from "./naming.ts";
export type { JsonSchemaObject } from "./json.ts";
