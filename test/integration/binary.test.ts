/**
 * The shipped artifact: `npm run build` compiles one binary with every bundled component (the static
 * registry, no dynamic import left), and that binary — not the source tree — lists the same
 * components and serves the demo flow in local mode.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, cpSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort, startProcess, waitUntil, type ManagedProcess } from "../support/process.ts";

const ROOT = resolve(import.meta.dir, "../..");
const BINARY = join(ROOT, "dist/tinyhost");
let work: string;

beforeAll(() => {
  const r = Bun.spawnSync([process.execPath, "scripts/build.ts"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`npm run build failed:\n${r.stderr.toString()}`);
  // Run the binary from a directory without the source tree, as in a container.
  work = mkdtempSync(join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "binary-"));
}, 300_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

function run(args: string[], cwd: string) {
  const r = Bun.spawnSync([BINARY, ...args], { cwd, stdout: "pipe", stderr: "pipe", env: { ...process.env, TINYHOST_LOG_LEVEL: "silent" } });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
}

describe("the compiled binary", () => {
  test("it is one self-contained executable", () => {
    expect(statSync(BINARY).mode & 0o111).not.toBe(0);
    const v = run(["version"], work);
    expect(v.code).toBe(0);
    expect(v.out.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  test("`components --json` equals the listing of the source tree", () => {
    const compiled = run(["components", "--json"], work);
    expect(compiled.code).toBe(0);
    const dev = Bun.spawnSync([process.execPath, "src/cli/main.ts", "components", "--json"], {
      cwd: ROOT,
      stdout: "pipe",
      env: { ...process.env, TINYHOST_LOG_LEVEL: "silent" },
    });
    const fromBinary = JSON.parse(compiled.out) as { name: string }[];
    expect(fromBinary.length).toBeGreaterThanOrEqual(12);
    expect(fromBinary).toEqual(JSON.parse(dev.stdout.toString()));
  });

  test("`eval` runs the platform's eval flow away from the repository: both evals pass, a wrong claim exits 1", () => {
    const smoke = join(ROOT, "test/fixtures/flows/tiny-eval-csv-smoke");
    const flow = join(work, "eval-flow");
    cpSync(smoke, flow, { recursive: true });
    const r = run(["eval", flow, join(flow, "evals")], work);
    expect(r.err).toBe("");
    expect(r.out).toContain("PASS  csv_decode keeps a quoted comma intact and infers numbers");
    expect(r.out).toContain("PASS  a chunked document keeps its overlap");
    expect(r.out).toContain("evals: 2 passed, 0 failed");
    expect(r.code).toBe(0);
    writeFileSync(
      join(work, "wrong.yaml"),
      "name: wrong\ntrigger: {node: signal-eval, data: {send: true}}\nexpect: {arrives: [{at: 'debug-eval:in', path: '$.count', equals: 3}]}\n",
    );
    const wrong = run(["eval", flow, join(work, "wrong.yaml")], work);
    expect(wrong.out).toContain("at debug-eval:in $.count: expected 3 — got 2");
    expect(wrong.code).toBe(1);
  });

  test("`provision --dry-run` carries the seven CRDs inside the binary", () => {
    const r = run(["provision", "--dry-run", "--namespace", "binary-test"], work);
    expect(r.code).toBe(0);
    const crds = r.out.split("\n").filter((l) => l.startsWith("kind: CustomResourceDefinition"));
    expect(crds.length).toBe(7);
  });

  test("a js_eval node starts its script sandbox (the worker is found inside the binary)", async () => {
    const dir = join(work, "js-eval");
    mkdirSync(dir, { recursive: true });
    const settings = { enableErrorPort: false, script: { name: "main.js", content: "export default function main(input) { return input; }" }, modules: [] };
    writeFileSync(
      join(dir, "node.yaml"),
      [
        "apiVersion: operator.tinysystems.io/v1alpha1",
        "kind: TinyNode",
        "metadata:",
        "  name: e3a9c97e.tinyhost.js-eval-75646",
        "  namespace: tinysystems",
        "  annotations:",
        "    tinysystems.io/node-label: Script",
        "spec:",
        "  module: tinyhost",
        "  component: js_eval",
        "  ports:",
        "    - port: _settings",
        `      configuration: ${Buffer.from(JSON.stringify(settings)).toString("base64")}`,
        "",
      ].join("\n"),
    );
    const log = join(work, "js-eval.log");
    const proc = startProcess({ name: "tinyhost binary js_eval", cmd: [BINARY, "run", "--local", dir, "--no-state", "--no-console"], logFile: log, cwd: work });
    try {
      await waitUntil("the js_eval node's status line", async () => /node "Script"\s+js_eval\s+(OK|error)/.test(readFileSync(log, "utf8")), 30_000, 100);
      const text = readFileSync(log, "utf8");
      expect(text).not.toContain("sandbox failed");
      expect(text).toMatch(/node "Script"\s+js_eval\s+OK/);
    } finally {
      await proc.stop();
    }
  }, 60_000);

  describe("`run --local examples/hello-api` serves the demo", () => {
    let proc: ManagedProcess;
    let base: string;
    beforeAll(async () => {
      const dir = join(work, "hello-api");
      cpSync(join(ROOT, "examples/hello-api"), dir, { recursive: true });
      const port = freePort();
      base = `http://127.0.0.1:${port}`;
      proc = startProcess({
        name: "tinyhost binary",
        cmd: [BINARY, "run", "--local", dir, "--port", String(port), "--no-state"],
        logFile: join(work, "binary.log"),
        cwd: work,
      });
      await waitUntil("the binary's http_server", async () => (await fetch(`${base}/hello`)).status === 200, 20_000, 50);
    }, 60_000);
    afterAll(() => proc?.stop());

    test("GET answers 200 with JSON built by the flow", async () => {
      const res = await fetch(`${base}/hello`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ hello: "world", method: "GET", path: "/hello" });
    });

    test("POST answers 201 echoing the body; another method 404 from the router's default port", async () => {
      const post = await fetch(`${base}/items`, { method: "POST", body: '{"n":1}', headers: { "content-type": "application/json" } });
      expect(post.status).toBe(201);
      expect(await post.text()).toBe('{"n":1}');
      const del = await fetch(`${base}/thing`, { method: "DELETE" });
      expect(del.status).toBe(404);
    });
  });
});

describe("`demo` in the compiled binary, away from the repository", () => {
  let proc: ManagedProcess;
  let log: string;
  const port = freePort();
  beforeAll(async () => {
    log = join(work, "binary-demo.log");
    proc = startProcess({ name: "tinyhost binary demo", cmd: [BINARY, "demo", "--port", String(port), "--console", "127.0.0.1:0"], logFile: log, cwd: work });
    await waitUntil("the demo's http_server", async () => (await fetch(`http://127.0.0.1:${port}/hello`).catch(() => undefined))?.status === 200, 20_000, 50);
  }, 60_000);
  afterAll(() => proc?.stop());

  test("runs the built-in hello-api flow and serves its console (page and script from inside the binary)", async () => {
    expect(await (await fetch(`http://127.0.0.1:${port}/hello`)).json()).toEqual({ hello: "world", method: "GET", path: "/hello" });
    const text = await Bun.file(log).text();
    expect(text).toContain("The built-in hello-api flow runs from");
    const url = /console: (http:\/\/127\.0\.0\.1:\d+)\//.exec(text)![1]!;
    expect(await (await fetch(`${url}/`)).text()).toContain("<title>tinyhost console · tinyhost</title>");
    expect(await (await fetch(`${url}/console.js`)).text()).toContain("EventSource");
    const flow = (await (await fetch(`${url}/api/flow`)).json()) as { nodes: { label?: string }[] };
    expect(flow.nodes.map((n) => n.label).sort()).toEqual(["Build hello JSON", "HTTP server", "Route by method", "Start server"]);
  });
});
