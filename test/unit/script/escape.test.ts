/**
 * Escape attempts against the script sandbox (docs/security.md): each fails its own call with a
 * clear error, and the host process and other sandboxes carry on.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MemoryWatchdog, ScriptError, startScript, type ScriptSandbox } from "../../../src/runtime/script/index.ts";

const watchdog = new MemoryWatchdog(128 * 2 ** 20);
const started: ScriptSandbox[] = [];
let bystander: ScriptSandbox;

async function start(main: string): Promise<ScriptSandbox> {
  const s = await startScript({ main }, { loadTimeoutMs: 5_000, watchdog });
  started.push(s);
  return s;
}

async function failure(main: string, input: unknown = {}, timeoutMs = 5_000): Promise<ScriptError> {
  const s = await start(main);
  try {
    const value = await s.call(input, { timeoutMs });
    throw new Error(`the call succeeded with ${JSON.stringify(value)}`);
  } catch (err) {
    if (!(err instanceof ScriptError)) throw err;
    return err;
  }
}

async function compileFailure(main: string): Promise<ScriptError> {
  try {
    await start(main);
  } catch (err) {
    if (err instanceof ScriptError) return err;
    throw err;
  }
  throw new Error("the script compiled");
}

beforeAll(async () => {
  process.env.TINYHOST_ESCAPE_CANARY = "secret";
  bystander = await start("let n = 0; export default (i) => ({ n: ++n, echo: i })");
});
afterAll(() => {
  for (const s of started) s.close();
});

/** After each attempt: the host still has its globals and the other sandbox still answers. */
async function hostAndOthersUnaffected(): Promise<void> {
  expect(process.env.TINYHOST_ESCAPE_CANARY).toBe("secret");
  expect(typeof Bun.file).toBe("function");
  expect(Object.prototype.hasOwnProperty.call(Object.prototype, "polluted")).toBe(false);
  const r = (await bystander.call({ x: 1 }, { timeoutMs: 5_000 })) as { echo: unknown };
  expect(r.echo).toEqual({ x: 1 });
}

describe("a script cannot reach the host", () => {
  test("process.env is not defined in a script", async () => {
    const e = await failure("export default () => process.env.TINYHOST_ESCAPE_CANARY");
    expect(e.code).toBe("SCRIPT_THROW");
    expect(e.message).toBe("ReferenceError: process is not defined");
    await hostAndOthersUnaffected();
  });

  test("Bun.file is not defined in a script", async () => {
    const e = await failure(`export default () => Bun.file("/etc/passwd").text()`);
    expect(e.message).toContain("ReferenceError");
    expect(e.message).toContain("Bun");
    await hostAndOthersUnaffected();
  });

  test("a static import of node:fs is refused at compile time", async () => {
    const e = await compileFailure(`import { readFileSync } from "node:fs"; export default () => readFileSync("/etc/passwd", "utf8")`);
    expect(e.code).toBe("SCRIPT_COMPILE");
    expect(e.message).toBe('import "node:fs" is refused: a script may import only the modules given with it (none)');
    await hostAndOthersUnaffected();
  });

  test("require('fs') is refused at compile time", async () => {
    const e = await compileFailure(`const fs = require("fs"); export default () => fs.readFileSync("/etc/passwd", "utf8")`);
    expect(e.message).toContain('import "fs" is refused');
  });

  test("a computed import() fails the call: the context has no module loader", async () => {
    const e = await failure(`export default async () => (await import(["node", "fs"].join(":"))).readFileSync("/etc/passwd", "utf8")`);
    expect(e.code).toBe("SCRIPT_THROW");
    expect(e.message).toContain("dynamic import");
    await hostAndOthersUnaffected();
  });

  test("fetch is not defined in a script", async () => {
    const e = await failure(`export default async () => (await fetch("http://169.254.169.254/")).status`);
    expect(e.message).toContain("ReferenceError");
    expect(e.message).toContain("fetch");
  });

  test("constructor tricks compile code only inside the script's own context, or not at all", async () => {
    for (const trick of [
      `globalThis.constructor.constructor("return typeof process")()`,
      `Object.getPrototypeOf(globalThis).constructor.constructor("return typeof process")()`,
      `(async function(){}).constructor("return typeof process")()`,
      `(function(){ return this })().constructor.constructor("return typeof Bun")()`,
    ]) {
      const s = await start(`export default async () => await ${trick}`);
      const out = await s.call({}, { timeoutMs: 5_000 }).catch((e: ScriptError) => e.message);
      expect(["undefined", "EvalError: code generation is disabled outside the script's own context"]).toContain(out as string);
    }
    // In Bun the context's global inherits from the worker's realm: this reaches the worker's
    // Function constructor, which the sandbox disabled (else import() would work there).
    const e = await failure(`export default async () => globalThis.constructor.constructor("return import('node:fs')")()`);
    expect(e.message).toBe("EvalError: code generation is disabled outside the script's own context");
  });

  test("stack-trace callsites hand out no host object", async () => {
    const s = await start(`export default () => {
      Error.prepareStackTrace = (_e, sites) => sites.map((c) => { const t = c.getThis && c.getThis(); return t && (t.process || t.Bun) ? "leak" : "none" });
      return new Error("x").stack;
    }`);
    const out = (await s.call({}, { timeoutMs: 5_000 })) as string[] | string;
    expect(JSON.stringify(out)).not.toContain("leak");
  });

  test("prototype pollution stays in the script's own sandbox", async () => {
    const polluter = await start(
      `export default () => { Object.prototype.polluted = "yes"; Array.prototype.map = () => "hijacked"; JSON.parse = () => "hijacked"; return [1].map((x) => x) }`,
    );
    expect(await polluter.call({}, { timeoutMs: 5_000 })).toBe("hijacked");
    const other = await start(`export default (i) => ({ polluted: ({}).polluted ?? null, mapped: [1, 2].map((x) => x * 2), parsed: i })`);
    expect(await other.call({ a: 1 }, { timeoutMs: 5_000 })).toEqual({ polluted: null, mapped: [2, 4], parsed: { a: 1 } });
    await hostAndOthersUnaffected();
  });

  test("the input is a copy: a script changing it changes nothing outside", async () => {
    const s = await start(`export default (i) => { i.list.push(99); i.name = "changed"; return true }`);
    const input = { list: [1], name: "kept" };
    await s.call(input, { timeoutMs: 5_000 });
    expect(input).toEqual({ list: [1], name: "kept" });
  });
});

describe("a runaway script is stopped without stopping anything else", () => {
  test("while(true) fails the call after its time limit while another sandbox keeps answering", async () => {
    const s = await start("export default () => { while (true) {} }");
    const t0 = performance.now();
    const running = s.call({}, { timeoutMs: 1_000 }).catch((e: unknown) => e);
    await hostAndOthersUnaffected(); // answered while the loop spins
    const e = (await running) as ScriptError;
    expect(e.code).toBe("SCRIPT_TIMEOUT");
    expect(e.message).toBe("script timeout after 1s (timeoutSeconds setting)");
    expect(performance.now() - t0).toBeGreaterThanOrEqual(900);
  });

  test("an async loop that never yields to the event loop is stopped too", async () => {
    const e = await failure("export default async () => { for (;;) await null }", {}, 1_000);
    expect(e.code).toBe("SCRIPT_TIMEOUT");
  });

  test("a stopped sandbox serves the next call with a fresh worker", async () => {
    const s = await start("export default (i) => { if (i.spin) for (;;) {} return 'fine' }");
    await s.call({ spin: true }, { timeoutMs: 500 }).catch(() => {});
    expect(await s.call({ spin: false }, { timeoutMs: 5_000 })).toBe("fine");
    expect(s.starts).toBe(2);
  });

  test("a 1 GiB allocation fails the call at the memory cap and the memory is given back", async () => {
    const e = await failure(`export default () => "x".repeat(2 ** 30).length`, {}, 60_000);
    expect(e.code).toBe("SCRIPT_MEMORY");
    expect(e.message).toMatch(/^script stopped: the process grew by \d+ MiB while it ran, over the 128 MiB cap \(TINYHOST_SCRIPT_MEMORY_MB\)$/);
    await hostAndOthersUnaffected();
    let rss = process.memoryUsage.rss();
    for (let i = 0; i < 100 && rss > 900 * 2 ** 20; i++) {
      await Bun.sleep(100);
      rss = process.memoryUsage.rss();
    }
    expect(rss).toBeLessThan(900 * 2 ** 20);
  });

  test("an allocation loop of small objects is stopped at the cap", async () => {
    const e = await failure(`export default () => { const a = []; for (;;) a.push({ n: a.length, s: "padding-padding-" + a.length }) }`, {}, 60_000);
    expect(e.code).toBe("SCRIPT_MEMORY");
  });

  test("top-level code that never ends fails the load with a timeout", async () => {
    try {
      await startScript({ main: "for (;;) {} export default () => 1" }, { loadTimeoutMs: 500, watchdog });
      throw new Error("loaded");
    } catch (err) {
      expect((err as ScriptError).code).toBe("SCRIPT_TIMEOUT");
    }
  });

  test("a cancelled call stops the script", async () => {
    const s = await start("export default () => { for (;;) {} }");
    const ac = new AbortController();
    const running = s.call({}, { timeoutMs: 30_000, signal: ac.signal }).catch((e: unknown) => e);
    await Bun.sleep(50);
    ac.abort("hop cancelled");
    const e = (await running) as ScriptError;
    expect(e.code).toBe("SCRIPT_CANCELLED");
    expect(e.message).toBe("script interrupted: hop cancelled");
  });
});

describe("results and languages", () => {
  test("TypeScript compiles when the language is ts", async () => {
    const s = await startScript({ main: "export default (i: { n: number }): number => i.n * 3", language: "ts" }, { loadTimeoutMs: 5_000, watchdog });
    started.push(s);
    expect(await s.call({ n: 2 }, { timeoutMs: 5_000 })).toBe(6);
  });

  test("a result JSON cannot carry fails with SCRIPT_RESULT", async () => {
    const e = await failure("export default () => 10n");
    expect(e.code).toBe("SCRIPT_RESULT");
  });

  test("console lines go to the host's log callback", async () => {
    const lines: string[] = [];
    const s = await startScript(
      { main: `export default (i) => { console.log("saw", i); return 1 }` },
      { loadTimeoutMs: 5_000, watchdog, onLog: (l, t) => lines.push(`${l} ${t}`) },
    );
    started.push(s);
    await s.call({ a: 1 }, { timeoutMs: 5_000 });
    for (let i = 0; i < 50 && lines.length === 0; i++) await Bun.sleep(10);
    expect(lines).toEqual(['info saw {"a":1}']);
  });
});

describe("load limit", () => {
  test("top-level code gets the call limit, at most 5 s", async () => {
    const { loadTimeoutMsOf, DEFAULT_LOAD_TIMEOUT_MS } = await import("../../../src/runtime/script/index.ts");
    expect(DEFAULT_LOAD_TIMEOUT_MS).toBe(5_000);
    expect([loadTimeoutMsOf(undefined), loadTimeoutMsOf(0), loadTimeoutMsOf(60), loadTimeoutMsOf(2)]).toEqual([5_000, 5_000, 5_000, 2_000]);
  });

  test("the load limit counts the top-level code and names itself", async () => {
    try {
      await startScript({ main: "for (;;) {} export default () => 1" }, { loadTimeoutMs: 300, watchdog });
      throw new Error("loaded");
    } catch (err) {
      expect((err as ScriptError).message).toBe("the script's top-level code ran past 300 ms while loading");
    }
  });
});
