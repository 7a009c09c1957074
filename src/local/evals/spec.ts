/**
 * Eval specs in the Go SDK's `pkg/evals` format (github.com/tiny-systems/module pkg/evals spec.go,
 * env.go; the TinySystems CLI's loader internal/eval/load.go): a YAML file holds one eval or a list
 * of them — `name`, `flow`, `trigger {node, port (default _control), data}`, `timeout` (a Go
 * duration, default 60s), `expect {errors, silent, arrives[], usage}` — and `${VAR}` in the trigger
 * data is read from the environment when the specs load. Parse errors read as Go's validation
 * messages (test/integration/eval-oracle.test.ts compares them with the SDK's).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import { TinyError } from "../../core/errors.ts";
import { parseGoDuration } from "../../runtime/expression/time.ts";
import { formatFloat } from "../../golang/fmt.ts";

/** Default of {@link EvalSpec.timeoutMs}: Go `spec.Timeout.Or(60*time.Second)`. */
export const DEFAULT_EVAL_TIMEOUT_MS = 60_000;

/** One assertion on the payloads that reached a port (Go `evals.Arrival`). */
export interface Arrival {
  /** `<node>:<port>`, a full name or a suffix of one. */
  at: string;
  /** JSONPath into the payload (the expression dialect); empty = the payload as a whole. */
  path?: string;
  /** Present (not null) = compare; Go treats `equals: null` as absent. */
  equals?: unknown;
  contains?: string;
  matches?: string;
  exists?: boolean;
  min?: number;
  max?: number;
}

/** A numeric range for a usage unit (Go `evals.Bound`). */
export interface Bound {
  min?: number;
  max?: number;
}

/** What must hold once the run settled (Go `evals.Expect`). */
export interface Expect {
  /** Unhandled errors allowed; absent = 0. */
  errors?: number;
  silent?: string[];
  arrives?: Arrival[];
  usage?: Record<string, Bound>;
}

/** One eval (Go `evals.Spec`). */
export interface EvalSpec {
  name: string;
  flow?: string;
  trigger: { node: string; port: string; data?: Record<string, unknown> };
  /** How long the run may take, ms (`timeout`, default {@link DEFAULT_EVAL_TIMEOUT_MS}). */
  timeoutMs: number;
  expect: Expect;
  /** Where it was loaded from, for reports. */
  path: string;
}

/** An eval file that cannot be read as the SDK reads it. code `EVAL_SPEC`. */
export class EvalSpecError extends TinyError {
  constructor(message: string) {
    super("EVAL_SPEC", message);
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Receives a warning about an eval file (a key the SDK ignores); the text names the file and the key. */
export type EvalWarn = (message: string) => void;

/**
 * Reads one eval file's text (Go `evals.Parse`): empty → none; a YAML list → several; else one.
 * YAML is read as 1.1, as sigs.k8s.io/yaml does (`yes` is true). A key the format does not have is
 * ignored, as Go's non-strict YAML does, and reported to `warn` (a misspelt `expekt` would
 * otherwise check nothing).
 * @throws EvalSpecError `<path>: <what>` for bad YAML, a field of the wrong type, a missing name or
 *   trigger node, an `at` without `:`, a timeout that is no Go duration or is negative.
 */
export async function parseEvals(path: string, text: string, warn: EvalWarn = () => {}): Promise<EvalSpec[]> {
  const trimmed = text.trim();
  if (trimmed === "") return [];
  const { parse } = await import("yaml");
  let doc: unknown;
  try {
    doc = parse(text, { version: "1.1" });
  } catch (err) {
    throw new EvalSpecError(`${path}: ${(err as Error).message}`);
  }
  const list = trimmed.startsWith("-") ? doc : [doc];
  if (!Array.isArray(list)) throw new EvalSpecError(`${path}: expected a list of evals, got ${typeName(doc)}`);
  return list.map((raw, i) => {
    try {
      return toSpec(raw, path, (where, key, known) =>
        warn(
          `${path}: ${list.length > 1 ? `eval ${i + 1}: ` : ""}unknown key ${JSON.stringify(key)}${where ? ` in ${where}` : ""} ignored (known: ${known.join(", ")})`,
        ),
      );
    } catch (err) {
      throw new EvalSpecError(`${path}: ${list.length > 1 ? `eval ${i + 1}: ` : ""}${(err as Error).message}`);
    }
  });
}

/**
 * Reads the evals of a file, or of every `*.yaml`/`*.yml` under a directory in sorted path order
 * (internal/eval/load.go), with `${VAR}` expanded from `env`; unknown keys go to `warn`.
 * @throws EvalSpecError as {@link parseEvals}, for a missing path, a file or directory with no
 *   evals (`no evals in <file>`), or an unset variable (`<name>: unset environment variable(s): A, B`).
 */
export async function loadEvals(path: string, env: Record<string, string | undefined> = process.env, warn: EvalWarn = () => {}): Promise<EvalSpec[]> {
  let dir: boolean;
  try {
    dir = statSync(path).isDirectory();
  } catch (err) {
    throw new EvalSpecError(`read evals from ${path}: ${(err as Error).message}`);
  }
  const files = dir ? walk(path).sort() : [path];
  const specs: EvalSpec[] = [];
  for (const f of files) specs.push(...(await parseEvals(f, readFileSync(f, "utf8"), warn)));
  // An empty file would pass with nothing checked: refused (the SDK's Parse returns none).
  if (!dir && specs.length === 0) throw new EvalSpecError(`no evals in ${path}`);
  if (dir && specs.length === 0) throw new EvalSpecError(`no evals found in ${path} — files must end in .yaml or .yml`);
  for (const s of specs) expandEnv(s, env);
  return specs;
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p));
    else if ([".yaml", ".yml"].includes(extname(e.name).toLowerCase())) out.push(p);
  }
  return out;
}

const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Replaces `${VAR}` in the trigger data with `env`'s values, in place (Go `Spec.ExpandEnv`); a
 * variable set to "" is set.
 * @throws EvalSpecError `<name>: unset environment variable(s): A, B` (names only, sorted).
 */
export function expandEnv(spec: EvalSpec, env: Record<string, string | undefined>): void {
  if (!spec.trigger.data || Object.keys(spec.trigger.data).length === 0) return;
  const missing = new Set<string>();
  const expand = (v: unknown): unknown => {
    if (typeof v === "string")
      return v.includes("${") ? v.replace(ENV_REF, (ref, name: string) => (env[name] !== undefined ? env[name]! : (missing.add(name), ref))) : v;
    if (Array.isArray(v)) return v.map(expand);
    if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, c]) => [k, expand(c)]));
    return v;
  };
  const data = expand(spec.trigger.data) as Record<string, unknown>;
  if (missing.size > 0) throw new EvalSpecError(`${spec.name}: unset environment variable(s): ${[...missing].sort().join(", ")}`);
  spec.trigger.data = data;
}

/** Reports one key the format does not have: where (`""` = the eval, `trigger`, `expect.arrives[0]`), the key, the known ones. */
type UnknownKey = (where: string, key: string, known: readonly string[]) => void;

/** Go `evals.Spec`, `Trigger`, `Expect`, `Arrival` and `Bound` fields, by their YAML keys. */
const KEYS = {
  eval: ["name", "flow", "trigger", "timeout", "expect"],
  trigger: ["node", "port", "data"],
  expect: ["errors", "silent", "arrives", "usage"],
  arrival: ["at", "path", "equals", "contains", "matches", "exists", "min", "max"],
  bound: ["min", "max"],
} as const;

function unknownKeys(o: Obj, known: readonly string[], where: string, report: UnknownKey): void {
  for (const k of Object.keys(o)) if (!known.includes(k)) report(where, k, known);
}

function toSpec(raw: unknown, path: string, report: UnknownKey): EvalSpec {
  const o = raw === null || raw === undefined ? {} : obj(raw, "eval");
  unknownKeys(o, KEYS.eval, "", report);
  const name = str(o.name, "name") ?? "";
  const trigger = o.trigger === undefined || o.trigger === null ? {} : obj(o.trigger, "trigger");
  unknownKeys(trigger, KEYS.trigger, "trigger", report);
  const expectRaw = o.expect === undefined || o.expect === null ? {} : obj(o.expect, "expect");
  unknownKeys(expectRaw, KEYS.expect, "expect", report);
  const spec: EvalSpec = {
    name,
    trigger: { node: str(trigger.node, "trigger.node") ?? "", port: str(trigger.port, "trigger.port") ?? "" },
    timeoutMs: timeout(o.timeout),
    expect: expectOf(expectRaw, report),
    path,
  };
  const flow = str(o.flow, "flow");
  if (flow) spec.flow = flow;
  if (trigger.data !== undefined && trigger.data !== null) spec.trigger.data = obj(trigger.data, "trigger.data");
  // Go spec.validate, in its order and words.
  if (name.trim() === "") throw new Error("eval has no name — the name is what a failure reports");
  if (spec.trigger.node.trim() === "") throw new Error(`${name}: trigger.node is required — an eval that fires nothing checks nothing`);
  if (spec.trigger.port === "") spec.trigger.port = "_control";
  (spec.expect.arrives ?? []).forEach((a, i) => {
    if (!a.at.includes(":")) throw new Error(`${name}: expect.arrives[${i}].at must be "<node>:<port>", got ${JSON.stringify(a.at)}`);
  });
  return spec;
}

function expectOf(o: Obj, report: UnknownKey): Expect {
  const e: Expect = {};
  if (o.errors !== undefined && o.errors !== null) {
    if (typeof o.errors !== "number" || !Number.isInteger(o.errors)) throw new Error(`expect.errors must be an integer, got ${JSON.stringify(o.errors)}`);
    e.errors = o.errors;
  }
  if (o.silent !== undefined && o.silent !== null) e.silent = list(o.silent, "expect.silent").map((s, i) => str(s, `expect.silent[${i}]`) ?? "");
  if (o.arrives !== undefined && o.arrives !== null) e.arrives = list(o.arrives, "expect.arrives").map((a, i) => arrival(a, `expect.arrives[${i}]`, report));
  if (o.usage !== undefined && o.usage !== null) {
    e.usage = {};
    for (const [unit, b] of Object.entries(obj(o.usage, "expect.usage"))) {
      const where = `expect.usage.${unit}`;
      const bo = b === null ? {} : obj(b, where);
      unknownKeys(bo, KEYS.bound, where, report);
      e.usage[unit] = bound(bo, where);
    }
  }
  return e;
}

function arrival(raw: unknown, where: string, report: UnknownKey): Arrival {
  const o = raw === null ? {} : obj(raw, where);
  unknownKeys(o, KEYS.arrival, where, report);
  const a: Arrival = { at: str(o.at, `${where}.at`) ?? "" };
  const path = str(o.path, `${where}.path`);
  if (path) a.path = path;
  if (o.equals !== undefined && o.equals !== null) a.equals = o.equals;
  const contains = str(o.contains, `${where}.contains`);
  if (contains) a.contains = contains;
  const matches = str(o.matches, `${where}.matches`);
  if (matches) a.matches = matches;
  if (o.exists !== undefined && o.exists !== null) {
    if (typeof o.exists !== "boolean") throw new Error(`${where}.exists must be true or false, got ${JSON.stringify(o.exists)}`);
    a.exists = o.exists;
  }
  Object.assign(a, bound(o, where));
  return a;
}

function bound(o: Obj, where: string): Bound {
  const b: Bound = {};
  for (const k of ["min", "max"] as const) {
    const v = o[k];
    if (v === undefined || v === null) continue;
    if (typeof v !== "number") throw new Error(`${where}.${k} must be a number, got ${JSON.stringify(v)}`);
    b[k] = v;
  }
  return b;
}

/**
 * Go `Duration.UnmarshalJSON`: the text without quotes, "" = unset, else `time.ParseDuration`.
 * Go's error does not name the field; ours does, so a file of many evals points at the line to fix.
 */
function timeout(v: unknown): number {
  if (v === undefined || v === null) return DEFAULT_EVAL_TIMEOUT_MS;
  const s = String(v);
  if (s === "") return DEFAULT_EVAL_TIMEOUT_MS;
  const ns = parseGoDuration(s);
  if (ns === undefined) throw new Error(`timeout: bad duration ${JSON.stringify(s)}: time: invalid duration ${JSON.stringify(s)} (a Go duration: 45s, 1m30s)`);
  // Go accepts it and the run's context is over before it starts: every eval would fail at once.
  if (ns < 0n) throw new Error(`timeout: ${JSON.stringify(s)} is negative: an eval needs time to run (a Go duration: 45s, 1m30s)`);
  return ns === 0n ? DEFAULT_EVAL_TIMEOUT_MS : Number(ns / 1_000_000n);
}

function obj(v: unknown, where: string): Obj {
  if (!isObj(v)) throw new Error(`${where} must be a mapping, got ${typeName(v)}`);
  return v;
}

function list(v: unknown, where: string): unknown[] {
  if (!Array.isArray(v)) throw new Error(`${where} must be a list, got ${typeName(v)}`);
  return v;
}

/**
 * A string field. A YAML scalar of another type becomes its text as sigs.k8s.io/yaml writes it for
 * a string target (`node: n` is YAML 1.1's false, read as "false"; `name: 5` as "5").
 */
function str(v: unknown, where: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return String(v);
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : formatFloat(v, "g", -1);
  throw new Error(`${where} must be a string, got ${typeName(v)}`);
}

function typeName(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "a list" : typeof v === "object" ? "a mapping" : `a ${typeof v}`;
}
