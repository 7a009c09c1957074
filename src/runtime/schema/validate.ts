/**
 * Port data validation with Ajv (JSON Schema draft 2020-12, for `$defs`), one compiled validator
 * per port schema, cached by schema object identity.
 *
 * Options and why: `allErrors: false` (stop at the first failure; a hop fails on one reason),
 * `coerceTypes: false` and `useDefaults: false` (the runtime decodes into a zero value and never
 * merges defaults, runtime-spec §2.2 / §16.5), `validateFormats: false` (the platform's `format` is a
 * UI hint — `button`, `textarea`, `code` — and the Go validator treats draft-2020 `format` as an
 * annotation). The platform keywords are declared as an annotation-only vocabulary so Ajv's strict
 * mode accepts them while still rejecting misspelled standard keywords (landscape §D.5).
 */
import Ajv2020 from "ajv/dist/2020";
import type { ErrorObject, ValidateFunction } from "ajv";
import type { TSchema } from "typebox";
import { PLATFORM_KEYWORDS } from "./keywords.ts";

/** One reason data does not match a port schema. */
export interface ValidationIssue {
  /** JSONPath of the offending value from the message root, e.g. `$.user.name`, `$.items[0]`. */
  path: string;
  /** The JSON Schema keyword that failed, as Ajv names it: `type`, `required`, `minLength`, `enum`, … */
  rule: string;
  /** Human text naming the path and the expected value, e.g. `$.age must be integer, got string`. */
  message: string;
}

/**
 * Validates one value against a compiled port schema: `null` when valid, else the issues found
 * (at most one, since validation stops at the first failure).
 */
export type PortValidator = (data: unknown) => ValidationIssue[] | null;

/** A port schema Ajv cannot compile (unknown keyword in strict mode, bad `$ref`, malformed keyword value). */
export class SchemaCompileError extends Error {
  /** Stable error code. */
  readonly code = "INVALID_SCHEMA";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SchemaCompileError";
  }
}

let ajv: Ajv2020 | undefined;
const cache = new WeakMap<object, PortValidator>();

/** The shared Ajv instance, created on first use. */
function instance(): Ajv2020 {
  if (ajv) return ajv;
  ajv = new Ajv2020({
    strict: true,
    strictTypes: false, // TypeBox unions put `type` inside anyOf branches; that is valid schema
    strictTuples: false,
    strictRequired: false,
    allErrors: false,
    coerceTypes: false,
    useDefaults: false,
    validateFormats: false,
    addUsedSchema: false, // TypeBox `$id`s would otherwise collide across ports sharing a type
    verbose: true, // keeps the failing value on the error so messages can say what was seen
    // Ajv's code optimisation pass recomputes name sets through the whole tree for every node:
    // skipping it halves compile time (the 39 bundled port schemas: 33 → 15 ms, warm), paid on a
    // port's first hop, while the validators measured as fast per call (router input ≈ 150 ns).
    code: { optimize: false },
    // Checking each schema against the 2020-12 meta-schema costs ~50 ms at the first compile (the
    // meta-schema itself is compiled) — half of a local cold start. Port schemas come from TypeBox
    // and component code, so that check runs in the test suite instead (test/unit/schema/
    // bundled-schemas.test.ts); strict mode still rejects unknown keywords here.
    validateSchema: false,
  });
  ajv.addVocabulary([...PLATFORM_KEYWORDS]);
  return ajv;
}

/**
 * Compiles `schema` (a TypeBox schema, a platform schema, or any JSON Schema object) into a
 * {@link PortValidator}. Validate port data against the AUTHORED schema: a platform schema built
 * with a live value carries properties inferred from that value, which are editor hints, not rules. Compiles once per schema object; later calls
 * with the same object return the cached validator.
 * @throws SchemaCompileError (`code: "INVALID_SCHEMA"`) when Ajv rejects the schema.
 */
export function compilePortValidator(schema: TSchema | object): PortValidator {
  const hit = cache.get(schema);
  if (hit) return hit;
  let validate: ValidateFunction;
  try {
    validate = instance().compile(schema);
  } catch (cause) {
    throw new SchemaCompileError(`port schema does not compile: ${(cause as Error).message}`, { cause });
  }
  const validator: PortValidator = (data) => {
    if (validate(data)) return null;
    return withoutBranchNoise(validate.errors ?? []).map(toIssue);
  };
  cache.set(schema, validator);
  return validator;
}

/**
 * Ajv reports every failed branch of an `anyOf`/`oneOf` before the combinator's own error, even
 * with `allErrors: false`; the branch errors contradict each other, so only the combinator's is kept.
 */
function withoutBranchNoise(errors: ErrorObject[]): ErrorObject[] {
  const combinators = errors.filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf");
  return errors.filter((e) => !combinators.some((c) => c !== e && e.schemaPath.startsWith(`${c.schemaPath}/`)));
}

/** Maps an Ajv error to a {@link ValidationIssue}; `required`/`additionalProperties` point at the property itself. */
function toIssue(error: ErrorObject): ValidationIssue {
  const params = error.params as Record<string, unknown>;
  let path = pointerToJsonPath(error.instancePath);
  let text: string;
  switch (error.keyword) {
    case "required":
      path = child(path, String(params.missingProperty));
      text = "is required";
      break;
    case "additionalProperties":
      path = child(path, String(params.additionalProperty));
      text = "is not an allowed property";
      break;
    case "type":
      text = `must be ${String(params.type)}, got ${jsonType(error.data)}`;
      break;
    case "enum":
      text = `must be one of ${JSON.stringify(params.allowedValues)}, got ${JSON.stringify(error.data)}`;
      break;
    case "const":
      text = `must be ${JSON.stringify(params.allowedValue)}, got ${JSON.stringify(error.data)}`;
      break;
    default:
      // Ajv's own text carries the limit: "must NOT have fewer than 3 characters", "must be >= 1".
      text = `${error.message ?? `fails ${error.keyword}`}, got ${JSON.stringify(error.data)}`;
  }
  return { path, rule: error.keyword, message: `${path} ${text}` };
}

/** `/user/items/0` (RFC 6901) → `$.user.items[0]`; keys that are not identifiers use `['k']`. */
export function pointerToJsonPath(pointer: string): string {
  if (pointer === "") return "$";
  let path = "$";
  for (const raw of pointer.slice(1).split("/")) {
    const seg = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    path = /^\d+$/.test(seg) ? `${path}[${seg}]` : child(path, seg);
  }
  return path;
}

function child(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}['${key.replace(/'/g, "\\'")}']`;
}

function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}
