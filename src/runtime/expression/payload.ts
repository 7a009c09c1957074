/**
 * Decoding an incoming message for evaluation as Go's runner does (`ajson.Unmarshal(msg.Data)`,
 * internal/scheduler/runner/runner.go): invalid JSON fails the hop; a `\u` escape of an unpaired
 * surrogate reads as U+FFFD (Go's unquote); a number beyond float64 (`1e400`) stays in the
 * document but cannot be read (values.ts `UnreadableNumber`). `JSON.parse` does the parsing; the
 * two repairs run only when the text could need them, so an ordinary payload costs one parse.
 */
import { toValidText } from "../../golang/string.ts";
import { isObject, type JsonObject, markUnreadableNumbers, setKey, UnreadableNumber } from "./values.ts";

// ignoreBOM: keep a byte-order mark, so it fails the parse as it does in Go.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** A `\u` escape of a surrogate (paired or not) somewhere in the text. */
const SURROGATE_ESCAPE = /\\u[dD][89abAB]|\\u[dD][c-fC-F]/;
/** Number text that may overflow float64: a three-digit exponent or 309+ digits. */
const HUGE_NUMBER = /[eE][+-]?\d{3}|\d{309}/;

const OUT_OF_RANGE = new UnreadableNumber("strconv.ParseFloat: value out of range (the payload number exceeds float64)");

function repairStrings(value: unknown): unknown {
  if (typeof value === "string") return toValidText(value);
  if (Array.isArray(value)) return value.map(repairStrings);
  if (isObject(value)) {
    const out: JsonObject = {};
    for (const k of Object.keys(value)) setKey(out, toValidText(k), repairStrings(value[k]));
    return out;
  }
  return value;
}

/**
 * Decodes message bytes as JSON the way Go's runner reads them for an edge configuration. Any
 * other value (an in-process message) is returned as-is — a string included: it is the string
 * value, as a Go message's `any` string is (json.Marshal quotes it before ajson reads it back), not
 * JSON text to parse.
 *
 * @param data the message body: JSON bytes, or an in-process value
 * @returns the JSON value; unreadable numbers as `UnreadableNumber`
 * @throws SyntaxError when the text is not JSON (Go fails the hop: `ajson parse requestData payload error`)
 */
export function decodePayloadJson(data: unknown): unknown {
  if (!(data instanceof Uint8Array)) return data;
  const text = decoder.decode(data);
  let unreadable = false;
  let value: unknown;
  if (HUGE_NUMBER.test(text)) {
    // The reviver sees the parsed number only; ±Infinity means its text overflowed.
    value = JSON.parse(text, (_k, v: unknown) => {
      if (typeof v === "number" && !Number.isFinite(v)) {
        unreadable = true;
        return OUT_OF_RANGE;
      }
      return v;
    });
  } else {
    value = JSON.parse(text);
  }
  if (SURROGATE_ESCAPE.test(text)) value = repairStrings(value);
  if (unreadable && typeof value === "object" && value !== null) markUnreadableNumbers(value);
  return value;
}
