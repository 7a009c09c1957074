/**
 * Encoding conformance: every case of this folder through Go's codecs (recorded in go.jsonl, or
 * live from test/go/codecs) and through tinyhost's (src/golang/), compared outcome by outcome.
 * Large outputs are compared by digest (types.ts DIGEST_OVER). `deliberate.json` lists the case
 * ids where tinyhost deliberately differs from Go, each explained in docs/compatibility.md.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { csvCases } from "./csv-cases.ts";
import { fmtCases } from "./fmt-cases.ts";
import { jsonCases } from "./json-cases.ts";
import { jwtCases } from "./jwt-cases.ts";
import { templateCases } from "./template-cases.ts";
import { xmlCases } from "./xml-cases.ts";
import { DIGEST_OVER, type EncodingCase, type GoOutcome } from "./types.ts";

/** Every encoding case, in a stable order. */
export function allEncodingCases(): EncodingCase[] {
  return [...csvCases(), ...jsonCases(), ...fmtCases(), ...xmlCases(), ...jwtCases(), ...templateCases()];
}

function digest(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")} len:${text.length}`;
}

/** `outcome` with every long text replaced by its digest, and absent fields dropped. */
export function compact(outcome: GoOutcome): GoOutcome {
  const out: GoOutcome = {};
  for (const [k, v] of Object.entries(outcome) as [keyof GoOutcome, unknown][]) {
    if (v === undefined || v === null) continue;
    if (k === "records") {
      if (Array.isArray(v) && v.length === 0) continue; // Go's `omitempty`
      const text = JSON.stringify(v);
      (out as Record<string, unknown>)[k] = text.length > DIGEST_OVER ? digest(text) : v;
    } else if (typeof v === "string") {
      (out as Record<string, unknown>)[k] = v.length > DIGEST_OVER ? digest(v) : v;
    }
  }
  return out;
}

/** Go's recorded outcome of every case, by id (go.jsonl). */
export function readRecording(): Map<string, GoOutcome> {
  const text = readFileSync(join(import.meta.dir, "go.jsonl"), "utf8");
  const map = new Map<string, GoOutcome>();
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const { id, go } = JSON.parse(line) as { id: string; go: GoOutcome };
    map.set(id, go);
  }
  return map;
}

/** Case id → why tinyhost deliberately differs (deliberate.json). */
export function readDeliberate(): Record<string, string> {
  return JSON.parse(readFileSync(join(import.meta.dir, "deliberate.json"), "utf8")) as Record<string, string>;
}

/** The oracle's input line for a case: JSON-valued fields go as raw JSON. */
export function oracleLine(c: EncodingCase): string {
  return JSON.stringify(c);
}

/** Report of a comparison: ids equal to Go, ids that differ undeclared, ids declared but equal. */
export interface ConformanceReport {
  run: number;
  equal: number;
  undeclared: string[];
  stale: string[];
  deliberate: number;
}

/** Compares `ours` with `go` for every case, honouring the deliberate list. */
export function compare(
  cases: readonly EncodingCase[],
  go: (c: EncodingCase) => GoOutcome,
  ours: (c: EncodingCase) => GoOutcome,
  deliberate: Record<string, string>,
): ConformanceReport {
  const report: ConformanceReport = { run: 0, equal: 0, undeclared: [], stale: [], deliberate: 0 };
  for (const c of cases) {
    report.run++;
    // A failed template execution's partial output is not observable (go_template emits only the error).
    const observable = (o: GoOutcome): GoOutcome => (c.op === "template" && o.error !== undefined ? { error: o.error } : o);
    const theirs = JSON.stringify(compact(observable(go(c))));
    const mine = JSON.stringify(compact(observable(ours(c))));
    const same = theirs === mine;
    if (c.id in deliberate) {
      if (same) report.stale.push(c.id);
      else report.deliberate++;
      continue;
    }
    if (same) report.equal++;
    else report.undeclared.push(`${c.id}: go ${theirs.slice(0, 400)} | ours ${mine.slice(0, 400)}`);
  }
  return report;
}
