/**
 * Definition names in `$defs`, made the way the Go SDK makes them: Go's
 * `cases.Title(language.English).String(typeName)` upper-cases the first letter of each word and
 * lower-cases the rest, so `ModifyInMessage` becomes `Modifyinmessage` (runtime-spec §10.1,
 * Go `pkg/schema/json.go` `getDefinitionName`).
 */

/**
 * Title-cases `name` like Go's `cases.Title`: first letter of each word upper, the rest lower.
 * A word starts at the beginning or after a character other than a letter, digit, `_`, `.` or `'`
 * (Unicode word-break approximates Go's: `"out_get"` → `"Out_get"`, `"my-type"` → `"My-Type"`,
 * `"ModifyInMessage"` → `"Modifyinmessage"`, `"HTTPServer"` → `"Httpserver"`; checked against
 * golang.org/x/text v0.33.0).
 */
export function titleCase(name: string): string {
  let out = "";
  let wordStart = true;
  for (const ch of name) {
    const inWord = /[\p{L}\p{N}_.']/u.test(ch);
    out += wordStart ? ch.toUpperCase() : ch.toLowerCase();
    wordStart = !inWord;
  }
  return out;
}

/**
 * The definition name for a schema: its `$id` (last URI segment) when set, else `fallback`
 * (a property name, or the root name), title-cased. Characters that cannot appear in a
 * `#/$defs/<name>` JSON Pointer without escaping (`/`, `~`, `#`, spaces) are dropped.
 */
export function definitionName(id: unknown, fallback: string): string {
  const source = typeof id === "string" && id !== "" ? lastSegment(id) : fallback;
  const cleaned = source.replace(/[^\p{L}\p{N}_\-.]/gu, "");
  return titleCase(cleaned === "" ? "Root" : cleaned);
}

function lastSegment(id: string): string {
  const parts = id.split(/[/#]/).filter((p) => p !== "");
  return parts[parts.length - 1] ?? id;
}
