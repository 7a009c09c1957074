/**
 * Port schemas: TypeBox → platform JSON Schema (runtime-spec §10.1) and compiled validation.
 * One import for the rest of the runtime.
 */
export { toPlatformSchema, schemaToBase64, type PlatformSchema } from "./platform.ts";
export { compilePortValidator, pointerToJsonPath, SchemaCompileError, type PortValidator, type ValidationIssue } from "./validate.ts";
export { PLATFORM_KEYWORDS, mark, configurable, shared, type PlatformKeyword, type PlatformOptions } from "./keywords.ts";
export { inferSchema, inferProperties } from "./infer.ts";
export { titleCase, definitionName } from "./naming.ts";
export type { JsonSchemaObject } from "./json.ts";
