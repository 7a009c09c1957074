/**
 * The expression conformance corpus and the two engines it runs through.
 *
 * Corpus (this folder): `expressions-go.jsonl` — 318 configurations with Go's results recorded by
 * the integrator (SDK v0.13.130); `cases-tinyhost.jsonl` — our own cases (ids `t<group>-NNN`) with
 * Go's results recorded by `record.ts` from the live oracle. One JSON object a line:
 * `{id, config, payload, go}`; `payload` is raw JSON text, or null for `default-payload.json`.
 *
 * Our engine runs each case exactly as the runner does for a port configuration
 * (src/runtime/runner/port-config.ts: compile the base64 configuration, decode the payload bytes,
 * evaluate with an error handler); Go's runs in the oracle (test/go/oracle: the SDK's evaluator
 * behind the runner's callback, then the JSON encoding that fails NaN/Inf).
 *
 * What must match (docs/compatibility.md "Expressions", "what the conformance test compares"):
 * the outcome kind (result, hop error); the evaluated configuration as a JSON value (key order
 * free, -0 = 0); and which expressions failed (as a multiset). Error message texts are ours.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { compilePortConfigs, decodeConfiguredPayload, evaluatePortConfig, PortConfigTable } from "../../src/runtime/runner/port-config.ts";

/** What an engine made of one case. */
export interface Outcome {
  /** The evaluated configuration (when the hop did not fail). */
  readonly result?: unknown;
  /** Failed expressions: Go's `"<expression>: <error>"` lines, or our expression texts. */
  readonly fieldErrors?: readonly string[];
  /** Why the hop failed before or after evaluation. */
  readonly hopError?: string;
  /** Go panicked (the oracle recovered it). */
  readonly panic?: string;
}

/** One corpus case. */
export interface Case {
  readonly id: string;
  readonly config: unknown;
  /** Raw JSON text of the payload (the default payload already substituted). */
  readonly payload: string;
  /** Go's recorded outcome (absent for a case not yet recorded). */
  readonly go?: Outcome;
  /** The file it came from. */
  readonly file: string;
}

const HERE = import.meta.dir;

/** The corpus files, recorded first. */
export const CORPUS_FILES = ["expressions-go.jsonl", "cases-tinyhost.jsonl"] as const;

/** The default payload text (`payload: null` in a case). */
export const DEFAULT_PAYLOAD = readFileSync(join(HERE, "default-payload.json"), "utf8").trim();

/** Reads one corpus file. */
export function readCases(file: string): Case[] {
  const text = readFileSync(join(HERE, file), "utf8");
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((line) => {
      const raw = JSON.parse(line) as { id: string; config: unknown; payload: string | null; go?: Outcome };
      return { id: raw.id, config: raw.config, payload: raw.payload ?? DEFAULT_PAYLOAD, go: raw.go, file };
    });
}

/** Every case of the corpus. */
export function allCases(): Case[] {
  return CORPUS_FILES.flatMap(readCases);
}

/** Deliberate differences: case id → reason class (see docs/compatibility.md). */
export type Deliberate = Readonly<Record<string, string>>;

/** The reason classes a deliberate difference may have. */
export const REASON_CLASSES = [
  "go-panic",
  "go-bug-precedence",
  "go-bug-ternary",
  "go-lenient-syntax",
  "json-format",
  "several-expressions",
  "superset",
] as const;

/** Reads `deliberate.json`. */
export function readDeliberate(): Deliberate {
  return JSON.parse(readFileSync(join(HERE, "deliberate.json"), "utf8")) as Deliberate;
}

/**
 * Runs one case through tinyhost exactly as the runner evaluates a port configuration.
 */
export function evaluateOurs(c: Case): Outcome {
  const b64 = Buffer.from(JSON.stringify(c.config), "utf8").toString("base64");
  const table = compilePortConfigs("conformance", [{ from: "source:out", port: "in", configuration: b64 }], new PortConfigTable());
  const pc = table.get("source:out", "in")!;
  let payload: unknown;
  try {
    payload = decodeConfiguredPayload(new TextEncoder().encode(c.payload));
  } catch (err) {
    return { hopError: `payload is not JSON: ${(err as Error).message}` };
  }
  const fieldErrors: string[] = [];
  try {
    const result = evaluatePortConfig(pc, payload, (err) => fieldErrors.push(err.expression));
    return { result, fieldErrors };
  } catch (err) {
    return { hopError: (err as Error).message };
  }
}

/** JSON value equality: object key order free, -0 equal to 0. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a === "number" && typeof b === "number") return a === b || (Number.isNaN(a) && Number.isNaN(b));
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const y = b as unknown[];
    return a.length === y.length && a.every((v, i) => sameJson(v, y[i]));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  return keys.length === Object.keys(y).length && keys.every((k) => Object.prototype.hasOwnProperty.call(y, k) && sameJson(x[k], y[k]));
}

/** Go's expression of a field error line `"<expression>: <message>"`, matched against ours. */
function sameFailures(goLines: readonly string[], ours: readonly string[]): boolean {
  if (goLines.length !== ours.length) return false;
  const left = [...goLines];
  // Longest expressions first, so `$.a` does not claim the line of `$.a + 1`.
  for (const expr of [...ours].sort((a, b) => b.length - a.length)) {
    const i = left.findIndex((l) => l.startsWith(`${expr}: `));
    if (i < 0) return false;
    left.splice(i, 1);
  }
  return true;
}

/**
 * How our outcome differs from Go's, or undefined when they match.
 * @returns a one-line description naming what differs and both values
 */
export function difference(go: Outcome, ours: Outcome): string | undefined {
  const show = (v: unknown) => JSON.stringify(v) ?? String(v);
  if (go.panic !== undefined) return `Go panics (${go.panic}); we give ${show(ours)}`;
  if (go.hopError !== undefined || ours.hopError !== undefined) {
    if (go.hopError !== undefined && ours.hopError !== undefined) return undefined;
    return go.hopError !== undefined
      ? `Go fails the hop (${go.hopError}); we give ${show(ours.result)}`
      : `we fail the hop (${ours.hopError}); Go gives ${show(go.result)}`;
  }
  if (!sameJson(go.result, ours.result)) return `result: Go ${show(go.result)}, ours ${show(ours.result)}`;
  if (!sameFailures(go.fieldErrors ?? [], ours.fieldErrors ?? [])) {
    return `failed expressions: Go ${show(go.fieldErrors ?? [])}, ours ${show(ours.fieldErrors ?? [])}`;
  }
  return undefined;
}

/** Result of running the corpus through our engine against some Go outcomes. */
export interface ConformanceReport {
  /** Cases run. */
  readonly run: number;
  /** Cases whose outcome equals Go's. */
  readonly equal: number;
  /** Deliberate differences that differ as listed, by reason class. */
  readonly deliberate: Readonly<Record<string, number>>;
  /** Cases that differ but are not listed: `id: what differs`. */
  readonly undeclared: readonly string[];
  /** Cases listed as deliberate that now match Go (they must be unlisted). */
  readonly stale: readonly string[];
}

/**
 * Compares our engine with Go's outcome for every case, and checks deliberate.json both ways.
 * @param goOutcome Go's outcome of a case (recorded or live)
 */
export function conformance(cases: readonly Case[], goOutcome: (c: Case) => Outcome, deliberate: Deliberate): ConformanceReport {
  let equal = 0;
  const byClass: Record<string, number> = {};
  const undeclared: string[] = [];
  const stale: string[] = [];
  for (const c of cases) {
    const d = difference(goOutcome(c), evaluateOurs(c));
    const listed = deliberate[c.id];
    if (d === undefined) {
      equal++;
      if (listed !== undefined) stale.push(`${c.id} (listed as ${listed})`);
    } else if (listed !== undefined) {
      byClass[listed] = (byClass[listed] ?? 0) + 1;
    } else {
      undeclared.push(`${c.id} ${JSON.stringify(c.config)}: ${d}`);
    }
  }
  return { run: cases.length, equal, deliberate: byClass, undeclared, stale };
}

/**
 * Whether two Go outcomes of one case agree (a recording against the live oracle): same kind;
 * same result; the same failed-expression lines in any order (Go walks objects in map order).
 * A panic's message names memory offsets that change between runs, so only its kind counts.
 */
export function sameGoOutcome(a: Outcome, b: Outcome): boolean {
  if (a.panic !== undefined || b.panic !== undefined) return a.panic !== undefined && b.panic !== undefined;
  if (a.hopError !== undefined || b.hopError !== undefined) return a.hopError === b.hopError;
  const sorted = (o: Outcome) => [...(o.fieldErrors ?? [])].sort();
  return sameJson(a.result, b.result) && JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
}
