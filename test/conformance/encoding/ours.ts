/** tinyhost's outcome of an encoding case: the same call made on src/golang/. */
import { CsvParseError, GoCsvReader, writeGoCsv } from "../../../src/golang/csv.ts";
import { goSprint, goSprintf } from "../../../src/golang/fmt.ts";
import { marshalGoJson, parseGoJson } from "../../../src/golang/json.ts";
import { signGoJwt, verifyGoJwt } from "../../../src/golang/jwt.ts";
import { encodeGoXml } from "../../../src/golang/xml.ts";
import { GoTemplateSet, TemplateExecError, TemplateParseError, type GoFunc } from "../../../src/golang/template/index.ts";
import { GoTime } from "../../../src/golang/time.ts";
import type { EncodingCase, GoOutcome } from "./types.ts";
import { messageOf } from "../../../src/core/errors.ts";

/** The oracle's `template` op: one set per template with every partial, `now` fixed. */
function render(c: EncodingCase): GoOutcome {
  const ms = Date.parse(c.now!);
  const nanos = Number((/\.(\d+)/.exec(c.now!)?.[1] ?? "").padEnd(9, "0").slice(3, 9));
  const funcs = new Map<string, GoFunc>([
    ["now", { params: [], call: () => new GoTime(ms, nanos) }],
    ["builtWith", { params: [], call: () => '<a href="https://tinysystems.io?from=builtwith" target="_blank">Built with Tiny Systems</a>' }],
  ]);
  const sets = new Map<string, GoTemplateSet>();
  try {
    for (const t of c.templates ?? []) {
      const set = new GoTemplateSet(funcs);
      set.parse(t.name, t.content);
      for (const p of c.partials ?? []) set.parse(p.name, p.content);
      sets.set(t.name, set);
    }
  } catch (err) {
    if (err instanceof TemplateParseError) return { parseError: err.message };
    throw err;
  }
  const set = sets.get(c.name!);
  if (!set) return { error: "template not found" };
  try {
    return { text: set.execute(c.name!, c.data ? parseGoJson(c.data) : null) };
  } catch (err) {
    if (err instanceof TemplateExecError) return { error: err.message };
    throw err;
  }
}

function csvRead(c: EncodingCase): GoOutcome {
  const reader = new GoCsvReader(c.text ?? "", { comma: c.comma, trimLeadingSpace: c.trim, lazyQuotes: c.lazy, fieldsPerRecord: c.ragged ? -1 : 0 });
  const records: string[][] = [];
  try {
    for (let r = reader.read(); r !== null; r = reader.read()) records.push(r);
  } catch (err) {
    if (!(err instanceof CsvParseError)) throw err;
    return { records, error: err.message };
  }
  return { records };
}

/** Our outcome of `c`, shaped as Go's. */
export function ours(c: EncodingCase): GoOutcome {
  switch (c.op) {
    case "csv_read":
      return csvRead(c);
    case "csv_write":
      try {
        return { text: writeGoCsv(c.records ?? [], c.comma) };
      } catch (err) {
        return { error: messageOf(err) };
      }
    case "json_decode":
      try {
        return { value: marshalGoJson(parseGoJson(c.text ?? "")) };
      } catch (err) {
        return { error: messageOf(err) };
      }
    case "json_encode":
      try {
        return { text: marshalGoJson(c.value) };
      } catch (err) {
        return { error: messageOf(err) };
      }
    case "sprint": {
      // The oracle decodes the values with goccy: our values are what that decoding gives.
      const values = parseGoJson(JSON.stringify(c.values ?? [])) as unknown[];
      return { text: c.format === undefined ? goSprint(...values) : goSprintf(c.format, ...values) };
    }
    case "xml_encode":
      try {
        return { text: encodeGoXml(parseGoJson(JSON.stringify(c.value))) };
      } catch (err) {
        return { text: "", error: messageOf(err) };
      }
    case "jwt_sign":
      try {
        return { token: signGoJwt(c.method ?? "", parseGoJson(c.claims ?? "{}") as Record<string, unknown>, c.key ?? "") };
      } catch (err) {
        return { error: messageOf(err) };
      }
    case "jwt_parse":
      try {
        return { claims: marshalGoJson(verifyGoJwt(c.token ?? "", c.method ?? "", c.key ?? "")) };
      } catch (err) {
        return { error: messageOf(err) };
      }
    case "template":
      return render(c);
    default:
      return { error: `op ${c.op} not implemented here` };
  }
}
