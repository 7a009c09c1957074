/**
 * XML as Go's `encoding/xml` `Encoder.Encode` writes the `any` a JSON document decodes into, for
 * xml_encode (Go 1.26 encoding/xml/marshal.go): a string, number or boolean is one element named
 * by its Go type (`<string>…</string>`, `<float64>1e+06</float64>`, `<bool>true</bool>`), null is
 * nothing, a list is its elements one after another (nested lists flattened, nulls skipped). Text
 * is escaped as Go's `EscapeText` does (`&#34;`, `&#39;`, `&#x9;`, `&#xA;`, `&#xD;`; a character
 * XML cannot hold becomes U+FFFD).
 *
 * One deliberate extension: Go refuses every object (`xml: unsupported type: map[string]interface
 * {}`), which leaves an XML encoder that cannot encode a document. Here an object's keys, sorted,
 * become child elements: `{"user":{"id":1,"tags":["a","b"]}}` → `<user><id>1</id><tags>a</tags>
 * <tags>b</tags></user>` — a list repeats the element, as Go writes a slice field; null is
 * omitted, as Go omits a nil interface field; numbers and text as above. A key that is not an XML
 * name is an error naming it. docs/compatibility.md "encoding-module" records it.
 */
import { TinyError } from "../core/errors.ts";
import { formatFloat } from "./fmt.ts";
import { compareGoStrings } from "./unicode.ts";
import { wellFormed } from "./unicode.ts";

/** A value that cannot be written as XML; `message` names the key. code `XML_ENCODE`. */
export class GoXmlError extends TinyError<"XML_ENCODE"> {
  constructor(message: string) {
    super("XML_ENCODE", message);
  }
}

/** Go `xml.isInCharacterRange`: the characters an XML document may hold. */
function inCharacterRange(cp: number): boolean {
  return cp === 0x09 || cp === 0x0a || cp === 0x0d || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
}

const ENTITIES: Record<string, string> = { '"': "&#34;", "'": "&#39;", "&": "&amp;", "<": "&lt;", ">": "&gt;", "\t": "&#x9;", "\n": "&#xA;", "\r": "&#xD;" };

/** Go `xml.EscapeText`. */
export function escapeXmlText(s: string): string {
  let out = "";
  for (const ch of wellFormed(s)) {
    const entity = ENTITIES[ch];
    if (entity) out += entity;
    else out += inCharacterRange(ch.codePointAt(0)!) ? ch : "\ufffd";
  }
  return out;
}

/** An XML element name a key may be: a letter or `_`, then letters, digits, `.`, `-`, `_` (no `:`). */
const XML_NAME = /^[\p{L}_][\p{L}\p{N}._\-\u00b7\u0300-\u036f\u203f-\u2040]*$/u;

function scalarText(v: string | number | boolean): string {
  if (typeof v === "string") return escapeXmlText(v);
  if (typeof v === "number") return formatFloat(v, "g", -1);
  return v ? "true" : "false";
}

const GO_TYPE: Record<string, string> = { string: "string", number: "float64", boolean: "bool" };

/**
 * The XML text Go's encoder writes for a JSON value (objects: see the module comment).
 * @throws GoXmlError for an object key that is not an XML name, or a value that is not JSON data.
 */
export function encodeGoXml(value: unknown): string {
  const out: string[] = [];
  const top = (v: unknown): void => {
    if (v === null || v === undefined) return;
    if (Array.isArray(v)) return v.forEach(top);
    if (typeof v === "object") return children(v as Record<string, unknown>);
    const type = GO_TYPE[typeof v];
    if (!type) throw new GoXmlError(`xml: unsupported type: ${typeof v}`);
    out.push(`<${type}>`, scalarText(v as string | number | boolean), `</${type}>`);
  };
  const children = (obj: Record<string, unknown>): void => {
    for (const key of Object.keys(obj).sort(compareGoStrings)) field(key, obj[key]);
  };
  const field = (name: string, v: unknown): void => {
    if (v === null || v === undefined) return;
    if (Array.isArray(v)) return v.forEach((item) => field(name, item));
    if (!XML_NAME.test(name)) throw new GoXmlError(`xml: key ${JSON.stringify(name)} is not a valid element name`);
    out.push(`<${name}>`);
    if (typeof v === "object") children(v as Record<string, unknown>);
    else if (GO_TYPE[typeof v]) out.push(scalarText(v as string | number | boolean));
    else throw new GoXmlError(`xml: unsupported type: ${typeof v}`);
    out.push(`</${name}>`);
  };
  top(value);
  return out.join("");
}
