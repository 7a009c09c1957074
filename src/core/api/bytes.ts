/**
 * Encoding of the CRDs' byte fields: a Go `[]byte` holding JSON text travels as a base64 string
 * (`type: string, format: byte`). runtime-spec §8; components.md §6 "configuration and schema
 * are Go []byte → in the CR they are base64 strings".
 */
import { TinyError } from "../errors.ts";

/**
 * A byte field could not be encoded or decoded. `field` names the CR field (e.g.
 * `spec.ports[2].configuration`), so the log line points at the offending value.
 */
export class Base64JsonError extends TinyError<"invalid_base64_json"> {
  /** The field the value came from or is meant for. */
  readonly field: string;

  /**
   * @param field CR field path the value belongs to.
   * @param message What is wrong, including a short excerpt of the value.
   */
  constructor(field: string, message: string) {
    super("invalid_base64_json", `${field}: ${message}`);
    this.name = "Base64JsonError";
    this.field = field;
  }
}

// Standard alphabet, padded, as Go's base64.StdEncoding and the API server's `format: byte`
// check require (RFC 4648 §4). Buffer.from(…, "base64") alone would silently accept junk.
const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const utf8Decoder = new TextDecoder("utf-8");

function excerpt(s: string): string {
  return JSON.stringify(s.length > 64 ? `${s.slice(0, 64)}…` : s);
}

/**
 * Encode a value for a byte field: `base64(UTF-8(JSON.stringify(value)))`.
 * Key order is the value's insertion order (Go sorts map keys and escapes `<>&`; the decoded
 * JSON is equal either way).
 *
 * @param value Any JSON-serialisable value (`null` is allowed and encodes `"null"`).
 * @param field CR field path, used only in the error message.
 * @returns Padded standard base64.
 * @throws Base64JsonError when the value has no JSON form (undefined, a function, a symbol, a
 *   bigint or a cycle).
 */
export function base64Json(value: unknown, field = "value"): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw new Base64JsonError(field, `cannot encode as JSON: ${(err as Error).message}`);
  }
  if (text === undefined) {
    throw new Base64JsonError(field, `cannot encode ${typeof value} as JSON`);
  }
  return Buffer.from(text, "utf8").toString("base64");
}

/**
 * Decode a byte field holding JSON text.
 *
 * An absent or empty field means "no value" (a nil/empty Go `[]byte`; the runner only applies a
 * configuration when it is non-empty, runtime-spec §2.2 step 5) and yields `undefined`.
 * Embedded CR/LF are ignored, like Go's base64 decoder.
 *
 * @param str The base64 string from the CR, or undefined/null when the field is absent.
 * @param field CR field path for the error message, e.g. `spec.ports[0].configuration`.
 * @returns The parsed JSON value, or `undefined` for an absent/empty field.
 * @throws Base64JsonError naming `field` when the string is not padded standard base64 or the
 *   decoded text is not JSON.
 */
export function decodeBase64Json(str: string | null | undefined, field: string): unknown {
  if (str === undefined || str === null) return undefined;
  if (typeof str !== "string") {
    throw new Base64JsonError(field, `expected a base64 string, got ${typeof str}`);
  }
  const compact = str.replace(/[\r\n]/g, "");
  if (compact === "") return undefined;
  if (!BASE64_RE.test(compact)) {
    throw new Base64JsonError(field, `not valid base64 (standard alphabet, padded): ${excerpt(str)}`);
  }
  const text = utf8Decoder.decode(Buffer.from(compact, "base64"));
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new Base64JsonError(field, `decoded bytes are not JSON (${(err as Error).message}): ${excerpt(text)}`);
  }
}
