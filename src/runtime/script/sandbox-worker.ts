/**
 * The inside of one script sandbox: runs in its own Worker (its own JavaScript VM and heap, started
 * with an empty environment by sandbox.ts) and evaluates the compiled script in a fresh `node:vm`
 * context that holds only the ECMAScript built-ins. Threat model and reasoning: docs/security.md.
 *
 * Layers, in order:
 * 1. before anything of the script runs, this worker's own global scope is stripped to the
 *    ECMAScript built-ins (no `process`, `fetch`, `require`, `WebSocket`, `Worker`, …; `Bun` is
 *    non-configurable in Bun 1.4.4 and stays, out of the context's reach), and code generation in
 *    this realm is disabled (`Function`/`AsyncFunction`/… constructors throw, `eval` is gone): in
 *    Bun a vm context's global inherits from this realm, so `this.constructor.constructor("…")`
 *    would otherwise compile code here, where `import()` works;
 * 2. the script runs in the vm context: `import()` there fails (no dynamic-import callback), and
 *    it has no timers, no network and no host objects;
 * 3. only strings cross the context boundary: the input is parsed and the result serialised by
 *    functions created inside the context before the script ran, so the script never holds an
 *    object of this realm it could use to reach further;
 * 4. this realm's shared prototypes are frozen, so a script that reaches them cannot change how
 *    this scaffold behaves;
 * 5. nothing can wake the script later: the context has no timers, and the two built-ins that
 *    could schedule its code outside a call — `Atomics.waitAsync` (a timer in disguise) and
 *    `FinalizationRegistry` (callbacks after a GC) — are removed, here and in the context. So once a
 *    call's microtasks have drained, no code of the script runs until the next call; this worker
 *    says so with an `idle` message (sent from a macrotask, which runs only after the microtask
 *    queue is empty), and sandbox.ts stops a worker whose call left work running.
 * Runaway loops and allocations are stopped from outside (sandbox.ts terminates the worker).
 *
 * Messages (structured clone, strings only):
 *   in:  {t:"load", code}  {t:"call", id, input?: json}  {t:"measure", id}
 *   out: {t:"loaded"}  {t:"load-error", message}  {t:"result", id, ok, output?: json, kind?, message?}
 *        {t:"idle", id, heapBytes}  {t:"log", level, text}
 */
import { fullGC, heapSize } from "bun:jsc";
import vm from "node:vm";

/** Globals of this realm the script sandbox keeps: ECMAScript built-ins only. */
const KEEP = new Set([
  "Infinity",
  "NaN",
  "undefined",
  "globalThis",
  "isNaN",
  "isFinite",
  "escape",
  "unescape",
  "decodeURI",
  "decodeURIComponent",
  "encodeURI",
  "encodeURIComponent",
  "parseInt",
  "parseFloat",
  "ArrayBuffer",
  "SharedArrayBuffer",
  "DataView",
  "Atomics",
  "EvalError",
  "RangeError",
  "ReferenceError",
  "SyntaxError",
  "TypeError",
  "URIError",
  "AggregateError",
  "SuppressedError",
  "Error",
  "Proxy",
  "Reflect",
  "JSON",
  "Math",
  "Intl",
  "Temporal",
  "Date",
  "Boolean",
  "Number",
  "String",
  "Symbol",
  "BigInt",
  "Object",
  "Function",
  "Array",
  "RegExp",
  "Iterator",
  "Promise",
  "Map",
  "Set",
  "WeakMap",
  "WeakSet",
  "WeakRef",
  "DisposableStack",
  "AsyncDisposableStack",
  "Int8Array",
  "Int16Array",
  "Int32Array",
  "Uint8Array",
  "Uint8ClampedArray",
  "Uint16Array",
  "Uint32Array",
  "Float16Array",
  "Float32Array",
  "Float64Array",
  "BigInt64Array",
  "BigUint64Array",
]);

type Incoming = { t: "load"; code: string } | { t: "call"; id: number; input?: string } | { t: "measure"; id: number };

interface Bridge {
  load(wrapper: unknown): string;
  call(input: string | undefined, done: (kind: number, payload: string | undefined) => void): void;
}

const post: (message: unknown) => void = globalThis.postMessage.bind(globalThis);
const listen = globalThis.addEventListener.bind(globalThis);
/** A macrotask: it runs only once the microtask queue is empty (captured before the realm is stripped). */
const macrotask: (fn: () => void) => void = (
  (set) => (fn: () => void) =>
    void set(fn, 0)
)(globalThis.setTimeout.bind(globalThis));
const Script = vm.Script;
const createContext = vm.createContext;

/** Created inside the context before the script runs, so these are the context's own intrinsics. */
const BRIDGE_SOURCE = `(function (log) {
  "use strict";
  delete globalThis.FinalizationRegistry;
  delete Atomics.waitAsync;
  const parse = JSON.parse, stringify = JSON.stringify, P = Promise, then = P.prototype.then, apply = Reflect.apply, S = String, defineProperty = Object.defineProperty;
  const show = (e) => {
    try {
      if (e !== null && typeof e === "object" && typeof e.message === "string") {
        const n = typeof e.name === "string" && e.name !== "Error" ? e.name + ": " : "";
        return n + e.message;
      }
      if (typeof e === "string") return e;
      const j = stringify(e);
      return j === undefined ? S(e) : j;
    } catch (_) { return "the script threw a value that cannot be shown"; }
  };
  const text = (args) => { let s = ""; for (let i = 0; i < args.length; i++) { const a = args[i]; let p; try { p = typeof a === "string" ? a : stringify(a); } catch (_) { p = undefined; } s += (i ? " " : "") + (p === undefined ? S(a) : p); } return s; };
  globalThis.console = Object.freeze({
    log: (...a) => log("info", text(a)), info: (...a) => log("info", text(a)), debug: (...a) => log("debug", text(a)),
    warn: (...a) => log("warn", text(a)), error: (...a) => log("error", text(a)),
  });
  let fn;
  return {
    load(wrapper) {
      const module = { exports: {} };
      try { wrapper(module, module.exports); } catch (e) { return show(e) || "the script threw while loading"; }
      const d = module.exports && module.exports.default;
      if (typeof d !== "function") return "the script has no default-exported function (export default function (inputData) { ... })";
      fn = d;
      return "";
    },
    call(input, done) {
      let out;
      try { out = fn(input === undefined ? undefined : parse(input)); } catch (e) { done(1, show(e)); return; }
      const settled = new P((resolve) => resolve(out));
      // No species lookup: a script that redefines Promise[Symbol.species] or its constructor cannot steer the bridge.
      defineProperty(settled, "constructor", { value: undefined });
      apply(then, settled, [
        (v) => {
          if (v === undefined || v === null) { done(0, undefined); return; }
          let s;
          try { s = stringify(v); } catch (e) { done(2, "the script's result cannot be sent as JSON: " + show(e)); return; }
          if (s === undefined) { done(2, "the script returned a " + typeof v + ", which JSON cannot carry"); return; }
          done(0, s);
        },
        (e) => done(1, show(e)),
      ]);
    },
  };
})`;

let bridge: Bridge | undefined;

function harden(): void {
  const g = globalThis as unknown as Record<string, unknown>;
  for (const name of Object.getOwnPropertyNames(g)) {
    if (KEEP.has(name)) continue;
    const d = Object.getOwnPropertyDescriptor(g, name);
    if (d?.configurable) delete g[name];
    else if (d?.writable) g[name] = undefined;
  }
  const blocked = function (): never {
    throw new EvalError("code generation is disabled outside the script's own context");
  };
  const kinds = [Function, async function () {}.constructor, function* () {}.constructor, async function* () {}.constructor];
  for (const k of kinds) Object.defineProperty((k as { prototype: object }).prototype, "constructor", { value: blocked, writable: false, configurable: false });
  for (const c of [Object, Function, Array, String, Number, Boolean, Symbol, Promise, RegExp, Date, Error, Map, Set, JSON, Math, Reflect]) {
    Object.freeze(c);
    if (typeof c === "function" && c.prototype) Object.freeze(c.prototype);
  }
  Object.freeze(Object.getPrototypeOf(kinds[1]!.prototype as object));
  delete (Atomics as { waitAsync?: unknown }).waitAsync;
  Object.freeze(Atomics);
}

/**
 * Posts `idle` once the microtasks the script queued have drained, with this worker's JS heap
 * (objects, strings and buffers it still holds), collected first when `collect` is set.
 */
function idleAfterDrain(id: number, collect: boolean): void {
  macrotask(() => {
    if (collect) fullGC();
    post({ t: "idle", id, heapBytes: heapSize() });
  });
}

function load(code: string): void {
  const context = createContext({}, { name: "tinyhost-script", codeGeneration: { strings: true, wasm: false } });
  const forwardLog = (level: string, text: string) => post({ t: "log", level: String(level), text: String(text).slice(0, 4096) });
  const makeBridge = new Script(BRIDGE_SOURCE, { filename: "tinyhost-bridge.js" }).runInContext(context) as (log: typeof forwardLog) => Bridge;
  bridge = makeBridge(forwardLog);
  const wrapper = new Script(`(function (module, exports) {\n${code}\n})`, { filename: "main.js" }).runInContext(context);
  const problem = bridge.load(wrapper);
  if (problem !== "") {
    bridge = undefined;
    post({ t: "load-error", message: problem });
    return;
  }
  macrotask(() => post({ t: "loaded" }));
}

function call(id: number, input: string | undefined): void {
  if (!bridge) {
    post({ t: "result", id, ok: false, kind: "throw", message: "the script is not loaded" });
    return;
  }
  bridge.call(input, (kind, payload) => {
    if (kind === 0) post({ t: "result", id, ok: true, output: typeof payload === "string" ? payload : undefined });
    else post({ t: "result", id, ok: false, kind: kind === 2 ? "result" : "throw", message: String(payload) });
  });
}

listen("message", (event: Event) => {
  const msg = (event as MessageEvent<Incoming>).data;
  try {
    if (msg.t === "load") load(msg.code);
    else if (msg.t === "call") {
      call(msg.id, msg.input);
      idleAfterDrain(msg.id, false);
    } else if (msg.t === "measure") idleAfterDrain(msg.id, true);
  } catch (err) {
    const message = err instanceof Error ? `${err.name === "Error" ? "" : `${err.name}: `}${err.message}` : String(err);
    if (msg.t === "load") post({ t: "load-error", message });
    else post({ t: "result", id: msg.id, ok: false, kind: "throw", message });
  }
});

harden();
post({ t: "ready" });
