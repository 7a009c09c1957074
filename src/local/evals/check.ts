/**
 * The verdict on one run: Go SDK `pkg/evals` `Check` (assert.go), the same failures in the same
 * words for the same observed run — test/integration/eval-oracle.test.ts compares them with the
 * SDK's own `evals.Check`. Paths are evaluated by tinyhost's expression engine (ajson's `Eval`, the
 * dialect Go's uses); regular expressions are RE2's; values print as Go prints them. Where Go
 * iterates a map (the ports a message arrived at, usage units) the order here is sorted, so a
 * report is the same on every run (Go's varies).
 */
import { marshalGoJson } from "../../golang/json.ts";
import { formatFloat, goQuote } from "../../golang/fmt.ts";
import { compileExpression } from "../../runtime/expression/index.ts";
import { compileRegex } from "../../runtime/expression/regex.ts";
import type { Arrival, EvalSpec } from "./spec.ts";

/** What a run produced, in the shape the assertions read (Go `evals.Observed`). */
export interface Observed {
  /** Every payload (JSON text) that arrived, by full `node:port`, in arrival order. */
  payloads: Record<string, string[]>;
  /** Failures that escaped (an input span that ended with an error). */
  errors: number;
  /** Failures a component routed out of its `error` port (reported, not asserted). */
  handled: number;
  /** Metered usage by unit. */
  usage: Record<string, number>;
}

/** One assertion that did not hold (Go `evals.Failure`). */
export interface Failure {
  what: string;
  got: string;
}

/** `what — got got`, or `what` when nothing was got (Go `Failure.String`). */
export function failureText(f: Failure): string {
  return f.got === "" ? f.what : `${f.what} — got ${f.got}`;
}

/** Evaluates `spec` against `got`; an empty list is a pass (Go `evals.Check`). */
export function check(spec: EvalSpec, got: Observed): Failure[] {
  const failures: Failure[] = [];
  const wantErrors = spec.expect.errors ?? 0;
  if (got.errors !== wantErrors) {
    failures.push({
      what: `expected ${wantErrors} unhandled errors`,
      got: `${got.errors}${got.handled > 0 ? ` (plus ${got.handled} caught by an error port)` : ""}`,
    });
  }
  for (const a of spec.expect.arrives ?? []) failures.push(...checkArrival(a, got));
  for (const port of spec.expect.silent ?? []) {
    const payloads = matchPayloads(got.payloads, port);
    if (payloads.length > 0) failures.push({ what: `expected nothing at ${port}`, got: `${payloads.length} message(s) arrived` });
  }
  for (const unit of Object.keys(spec.expect.usage ?? {}).sort()) {
    const bound = spec.expect.usage![unit]!;
    const amount = got.usage[unit];
    if (amount === undefined) {
      failures.push({ what: `expected the run to meter ${goQuote(unit)}`, got: "nothing metered under that unit" });
      continue;
    }
    if (bound.min !== undefined && amount < bound.min) failures.push({ what: `expected ${unit} >= ${goV(bound.min)}`, got: goV(amount) });
    if (bound.max !== undefined && amount > bound.max) failures.push({ what: `expected ${unit} <= ${goV(bound.max)}`, got: goV(amount) });
  }
  return failures;
}

/** Any payload at the port satisfying the assertion passes it (a looping flow is right once). */
function checkArrival(a: Arrival, got: Observed): Failure[] {
  const payloads = matchPayloads(got.payloads, a.at);
  if (payloads.length === 0) return [{ what: `expected a message at ${a.at}`, got: describePorts(got.payloads) }];
  let lastSeen = "";
  for (const payload of payloads) {
    let value: unknown;
    try {
      value = valueAt(payload, a.path ?? "");
    } catch (err) {
      lastSeen = (err as Error).message;
      continue;
    }
    const [ok, seen] = satisfies(a, value);
    if (ok) return [];
    lastSeen = seen;
  }
  return [{ what: `at ${a.at}${a.path ? ` ${a.path}` : ""}: ${describeExpectation(a)}`, got: lastSeen }];
}

/**
 * The payloads at `ref`: an exact key wins; else every key ending in `ref` (or `.ref`), so an eval
 * survives the flow-id prefix changing when a project is re-imported.
 */
export function matchPayloads(payloads: Record<string, string[]>, ref: string): string[] {
  if (Object.hasOwn(payloads, ref)) return payloads[ref]!;
  const out: string[] = [];
  for (const key of Object.keys(payloads).sort()) if (key.endsWith(ref) || key.endsWith(`.${ref}`)) out.push(...payloads[key]!);
  return out;
}

function describePorts(payloads: Record<string, string[]>): string {
  const keys = Object.keys(payloads).sort();
  if (keys.length === 0) return "nothing arrived anywhere — did the trigger fire?";
  const shown = keys.length > 6 ? [...keys.slice(0, 6), `… and ${keys.length - 6} more`] : keys;
  return `messages arrived at ${shown.join(", ")}`;
}

/** The payload, or the value at `path` in it (Go `valueAt`). @throws Error with Go's words when it cannot be read. */
function valueAt(payload: string, path: string): unknown {
  if (path.trim() === "") {
    try {
      return JSON.parse(payload);
    } catch {
      return payload; // not JSON: the raw text is the value
    }
  }
  let root: unknown;
  try {
    root = JSON.parse(payload);
  } catch {
    throw new Error(`payload is not JSON: ${truncate(payload, 120)}`);
  }
  try {
    return compileExpression(path).evaluate(root) ?? null;
  } catch {
    throw new Error(`path did not resolve in ${truncate(payload, 120)}`);
  }
}

/** Whether `value` satisfies the assertion, and what was seen (Go `satisfies`). */
function satisfies(a: Arrival, value: unknown): [boolean, string] {
  const seen = render(value);
  if (a.exists !== undefined) return [(value !== null) === a.exists, seen];
  if (a.equals !== undefined) return [equalish(value, a.equals), seen];
  if (a.contains) return [seen.includes(a.contains), seen];
  if (a.matches) {
    try {
      return [compileRegex(a.matches).test(seen), seen];
    } catch (err) {
      return [false, `invalid regexp ${goQuote(a.matches)}: ${(err as Error).message.replace(/^.*?(error parsing regexp)/, "$1")}`];
    }
  }
  if (a.min !== undefined || a.max !== undefined) {
    if (typeof value !== "number") return [false, `${seen} (not a number)`];
    if (a.min !== undefined && value < a.min) return [false, seen];
    if (a.max !== undefined && value > a.max) return [false, seen];
    return [true, seen];
  }
  return [true, seen]; // no condition: arriving at all is the assertion
}

function describeExpectation(a: Arrival): string {
  if (a.exists === true) return "expected a value";
  if (a.exists === false) return "expected no value";
  if (a.equals !== undefined) return `expected ${goV(a.equals)}`;
  if (a.contains) return `expected to contain ${goQuote(a.contains)}`;
  if (a.matches) return `expected to match ${goQuote(a.matches)}`;
  if (a.min !== undefined && a.max !== undefined) return `expected between ${goV(a.min)} and ${goV(a.max)}`;
  if (a.min !== undefined) return `expected >= ${goV(a.min)}`;
  if (a.max !== undefined) return `expected <= ${goV(a.max)}`;
  return "expected a message";
}

/** YAML's types do not punish the caller: `equals: 2` matches 2.0 (Go `equalish`). */
function equalish(got: unknown, want: unknown): boolean {
  if (typeof got === "number" && typeof want === "number") return got === want;
  if (typeof got === "boolean" && typeof want === "boolean") return got === want;
  return render(got) === render(want);
}

/** Go `render`: null, a string as is, a whole float as an integer, else `%v` or JSON. */
function render(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string") return v;
  if (typeof v === "number") return Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? BigInt(v).toString() : goV(v);
  try {
    return marshalGoJson(v, "encoding/json");
  } catch {
    return goV(v);
  }
}

/** Go `fmt.Sprintf("%v", x)` of a value decoded from JSON (float64, string, bool, nil, []any, map[string]any). */
export function goV(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (typeof v === "number") return formatFloat(v, "g", -1);
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return `[${v.map(goV).join(" ")}]`;
  if (typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `map[${Object.keys(o)
      .sort()
      .map((k) => `${k}:${goV(o[k])}`)
      .join(" ")}]`;
  }
  return String(v);
}

/** The first `n` bytes of `s` (Go slices strings by byte), marked `…` when cut. */
function truncate(s: string, n: number): string {
  const bytes = Buffer.from(s, "utf8");
  return bytes.length <= n ? s : `${bytes.subarray(0, n).toString("utf8")}…`;
}
