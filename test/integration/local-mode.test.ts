/**
 * Local mode end to end: `bun src/cli/main.ts run --local <copy of an example>` (and `demo`) as a
 * child process on a free port, observed through HTTP, its log and its state file. No cluster,
 * no NATS.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { examples, exampleFiles, helloApi, podReport, statusBoard, tickCount, uptimeProbe } from "../../examples/generate.ts";
import { nodeNameOf, type FlowDescription } from "../../src/cli/scaffold/flow-builder.ts";
import { freePort, startProcess, tail, waitUntil, type ManagedProcess } from "../support/process.ts";

const ROOT = resolve(import.meta.dir, "../..");
const TEST_TIMEOUT = 90_000;

interface Running {
  proc: ManagedProcess;
  log: string;
  port: number;
  dir: string;
}

const running: Running[] = [];
const temps: string[] = [];

afterEach(async () => {
  for (const r of running.splice(0)) await r.proc.stop();
});
afterAll(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), `tinyhost-${prefix}-`));
  temps.push(d);
  return d;
}

/** A copy of examples/<name> (YAML only) in a temp dir. */
function copyExample(name: string): string {
  const dir = tempDir(name);
  for (const f of readdirSync(join(ROOT, "examples", name))) if (f.endsWith(".yaml")) cpSync(join(ROOT, "examples", name, f), join(dir, f));
  return dir;
}

/** `desc` written as an example directory in a temp dir. */
function writeFlow(desc: FlowDescription, dir = tempDir(desc.flow)): string {
  for (const f of exampleFiles(desc)) writeFileSync(join(dir, f.name), f.text);
  return dir;
}

function spawn(args: string[], dir: string, port: number, env: Record<string, string> = {}): Running {
  const log = join(tempDir("log"), "tinyhost.log");
  const proc = startProcess({
    name: "tinyhost",
    cmd: [process.execPath, "src/cli/main.ts", ...args],
    logFile: log,
    cwd: ROOT,
    env: { TINYHOST_LOG_LEVEL: "warn", ...env },
  });
  const r = { proc, log, port, dir };
  running.push(r);
  return r;
}

function runLocal(dir: string, port = freePort()): Running {
  return spawn(["run", "--local", dir, "--port", String(port), "--console", "127.0.0.1:0"], dir, port);
}

/** How the terminal names node `key` of `desc`: its label, quoted (src/local/node-names.ts). */
function shown(desc: FlowDescription, key: string): string {
  return JSON.stringify(desc.nodes[key]!.label);
}

const logText = (r: Running) => (existsSync(r.log) ? readFileSync(r.log, "utf8") : "");

async function waitLog(r: Running, what: string, pred: (text: string) => boolean, ms = 30_000): Promise<void> {
  try {
    await waitUntil(what, async () => pred(logText(r)), ms);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- log ---\n${await tail(r.log, 40)}`);
  }
}

async function waitListening(r: Running): Promise<string> {
  const url = `http://localhost:${r.port}`;
  await waitLog(r, `listening on ${url}`, (t) => t.includes(`listening on ${url}`));
  return url;
}

async function call(url: string, init?: RequestInit): Promise<{ status: number; type: string; body: string }> {
  const res = await fetch(url, init);
  return { status: res.status, type: res.headers.get("content-type") ?? "", body: await res.text() };
}

/** The decoded State value `key` of node `name` in a state file (`status.metadata["_state/<key>"]`), or undefined. */
function stateIn(dir: string, name: string, key: string): string | undefined {
  const file = join(dir, ".tinyhost", "state.json");
  if (!existsSync(file)) return undefined;
  try {
    const b64 = JSON.parse(readFileSync(file, "utf8")).nodes[name]?.status?.metadata?.[`_state/${key}`];
    return typeof b64 === "string" ? Buffer.from(b64, "base64").toString("utf8") : undefined;
  } catch {
    return undefined; // mid-rename read: try again
  }
}

/** The `_state/count` of node `name` in a state file, or -1. */
function countIn(dir: string, name: string): number {
  const text = stateIn(dir, name, "count");
  return text === undefined ? -1 : Number(text);
}

async function expectHelloApi(url: string): Promise<void> {
  const get = await call(`${url}/hello?x=1`);
  expect(get.status).toBe(200);
  expect(get.type).toContain("application/json");
  expect(JSON.parse(get.body)).toEqual({ hello: "world", method: "GET", path: "/hello" });
  const post = await call(`${url}/echo`, { method: "POST", body: '{"n":1,"s":"é"}', headers: { "content-type": "application/json" } });
  expect(post.status).toBe(201);
  expect(post.body).toBe('{"n":1,"s":"é"}');
  const del = await call(`${url}/thing`, { method: "DELETE" });
  expect(del.status).toBe(404);
  expect(del.body).toBe("no route for DELETE /thing");
}

describe("tinyhost run --local", () => {
  test(
    "hello-api answers GET 200 JSON built by the flow, POST 201 echo, DELETE 404 from the default port",
    async () => {
      const r = runLocal(copyExample("hello-api"));
      await expectHelloApi(await waitListening(r));
    },
    TEST_TIMEOUT,
  );

  test(
    "npm run demo's command runs hello-api on PORT and prints its URL",
    async () => {
      const port = freePort();
      const r = spawn(["demo"], ROOT, port, { PORT: String(port) });
      const url = `http://localhost:${port}`;
      await waitLog(r, "the demo banner", (t) => t.includes(`hello-api is running: ${url}`));
      await expectHelloApi(url);
    },
    TEST_TIMEOUT,
  );

  test(
    "demo --port <n> serves on that port, not PORT",
    async () => {
      const port = freePort();
      const r = spawn(["demo", "--port", String(port)], ROOT, port, { PORT: String(freePort()) });
      const url = `http://localhost:${port}`;
      await waitLog(r, "the demo banner", (t) => t.includes(`hello-api is running: ${url}`));
      await expectHelloApi(url);
    },
    TEST_TIMEOUT,
  );

  test(
    "demo with an unknown flag exits 2 with a usage line, before starting anything",
    async () => {
      const r = spawn(["demo", "--bogus"], ROOT, 0);
      expect(await r.proc.exited).toBe(2);
      expect(logText(r)).toContain('tinyhost demo: unknown argument "--bogus"');
      expect(logText(r)).toContain("Usage: tinyhost demo [--port <n>]");
      expect(logText(r)).not.toContain("tinyhost local: module");
    },
    TEST_TIMEOUT,
  );

  test(
    "a port in use: demo exits 1 saying so; run --local marks the http_server node as error and keeps the other nodes running",
    async () => {
      const busy = Bun.serve({ port: 0, fetch: () => new Response("taken") });
      try {
        const port = busy.port!;
        const demo = spawn(["demo", "--port", String(port)], ROOT, port);
        expect(await demo.proc.exited).toBe(1);
        expect(logText(demo)).toContain(`tinyhost demo: port ${port} is in use: set PORT or --port`);

        const dir = copyExample("hello-api");
        const r = runLocal(dir, port);
        const server = shown(helloApi(), "server");
        // One line for the event: the node's status, naming its file, with the advice; no JSON log lines.
        const file = join(dir, "server.yaml");
        const line = (await Bun.file(file).text()).split("\n").indexOf("apiVersion: operator.tinysystems.io/v1alpha1") + 1;
        await waitLog(r, "the http_server error status", (t) =>
          t.includes(`node ${server}  http_server  error: ${file}:${line}: port ${port} is in use: set PORT or --port`),
        );
        expect(logText(r)).toContain(`node ${shown(helloApi(), "router")}  router  OK`);
        await Bun.sleep(1500); // a later reconcile (the http-start metadata patch) must not turn it back to OK
        expect(logText(r).split(`node ${server}  http_server  OK`).length - 1).toBe(1); // only the line before the start signal
        expect(logText(r).split(`port ${port} is in use`).length - 1).toBe(1);
        expect(logText(r)).not.toContain('{"level"');
        expect(await Promise.race([r.proc.exited.then(() => "exited"), Bun.sleep(100).then(() => "running")])).toBe("running");
      } finally {
        void busy.stop(true);
      }
    },
    TEST_TIMEOUT,
  );

  test(
    "a second run --local on the same directory exits 1 naming the first one's pid and --state; --state lets it run",
    async () => {
      const dir = copyExample("tick-count");
      const first = runLocal(dir);
      await waitLog(first, "the first run", (t) => t.includes("tinyhost local: module"));
      const second = runLocal(dir);
      expect(await second.proc.exited).toBe(1);
      expect(logText(second)).toContain(`is in use by another tinyhost (pid ${first.proc.pid})`);
      expect(logText(second)).toContain("--state <file>");
      const third = spawn(["run", "--local", dir, "--port", String(freePort()), "--state", join(tempDir("state"), "s.json")], dir, 0);
      await waitLog(third, "the run with its own state", (t) => t.includes(`node ${shown(tickCount(), "counter")}  counter  OK`));
    },
    TEST_TIMEOUT,
  );

  test(
    "a truncate-then-write save of the counter's YAML keeps its count; a node really removed and back resumes it",
    async () => {
      const dir = copyExample("tick-count");
      const r = runLocal(dir);
      const counter = nodeNameOf(tickCount(), "counter");
      await waitUntil("count ≥ 3", async () => countIn(dir, counter) >= 3, 30_000);
      const file = join(dir, readdirSync(dir).find((f) => f.startsWith("counter"))!);
      const text = readFileSync(file, "utf8");
      writeFileSync(file, ""); // a non-atomic save: truncate…
      await Bun.sleep(500);
      writeFileSync(file, text); // …then write
      const before = countIn(dir, counter);
      await waitUntil("the count goes on", async () => countIn(dir, counter) >= before + 2, 30_000);
      expect(logText(r)).not.toContain("removed");
      // Gone past the grace (onDestroy runs), then back: it resumes its count.
      rmSync(file);
      await waitLog(r, "the removal", (t) => t.includes("counter  removed"));
      const kept = countIn(dir, counter); // kept in the state file
      expect(kept).toBeGreaterThanOrEqual(before + 2);
      writeFileSync(file, text);
      await waitLog(r, "the node is back", (t) => t.includes("is back: it resumes the state it had when it was removed"));
      await waitUntil("the count goes on from the kept one", async () => countIn(dir, counter) > kept, 30_000);
      const ticks = [...logText(r).matchAll(/"count":(\d+)/g)].map((m) => Number(m[1]));
      expect(ticks.slice(1).every((n, i) => n > ticks[i]!)).toBe(true); // never restarted from 1
    },
    TEST_TIMEOUT,
  );

  test(
    "after kill -9 of a host orphaned under a non-reaping parent (a zombie), a new run takes its lock over",
    async () => {
      const dir = copyExample("tick-count");
      const log = join(tempDir("log"), "zombie.log");
      // sh starts the host in the background, prints its pid and becomes `sleep`, which never reaps it.
      const parent = Bun.spawn(
        ["sh", "-c", `${process.execPath} src/cli/main.ts run --local ${dir} --no-console --port ${freePort()} >${log} 2>&1 & echo $!; exec sleep 60`],
        { cwd: ROOT, stdout: "pipe", env: { ...process.env, TINYHOST_LOG_LEVEL: "warn" } },
      );
      try {
        const { value } = await parent.stdout.getReader().read();
        const pid = Number(new TextDecoder().decode(value).trim());
        await waitUntil("the first host runs", async () => existsSync(log) && readFileSync(log, "utf8").includes("counter  OK"), 30_000);
        process.kill(pid, 9);
        await waitUntil("a zombie", async () => readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z"), 10_000);
        const second = runLocal(dir);
        await waitLog(second, "the take-over line", (t) =>
          t.includes(`state: took over ${join(dir, ".tinyhost", "state.json.lock")} from pid ${pid}, which is no longer running`),
        );
      } finally {
        parent.kill(9);
      }
    },
    TEST_TIMEOUT,
  );

  test(
    "a second host with its own --state leaves send --local reaching the first, which it names",
    async () => {
      const dir = copyExample("tick-count");
      const first = runLocal(dir);
      await waitLog(first, "the first console", (t) => t.includes("console: http://"));
      const second = spawn(
        ["run", "--local", dir, "--port", String(freePort()), "--console", "127.0.0.1:0", "--state", join(tempDir("state"), "other.json")],
        dir,
        0,
      );
      await waitLog(second, "the second console", (t) => t.includes("console: http://"));
      const send = () =>
        Bun.spawnSync([process.execPath, "src/cli/main.ts", "send", "--local", dir, "Count ticks", "in", '{"by":1}', "--wait"], {
          cwd: ROOT,
          stdout: "pipe",
          stderr: "pipe",
          env: { ...process.env, TINYHOST_LOG_LEVEL: "warn" },
        });
      const both = send();
      expect(both.exitCode).toBe(0);
      expect(both.stderr.toString()).toContain(`2 tinyhost processes run on ${dir}: using pid ${first.proc.pid}`);
      await second.proc.stop();
      const one = send();
      expect(one.stderr.toString()).not.toContain("tinyhost processes run");
      expect(one.exitCode).toBe(0);
    },
    TEST_TIMEOUT,
  );

  test(
    "tick-count counts ticks in node state and shows them on the debug node",
    async () => {
      const dir = copyExample("tick-count");
      const r = runLocal(dir);
      const counter = nodeNameOf(tickCount(), "counter");
      await waitUntil("count ≥ 2 in the state file", async () => countIn(dir, counter) >= 2, 30_000);
      // Every message the debug node receives is printed, named by its label.
      await waitLog(r, "debug lines", (t) => t.includes(`debug "Last tick": {"count":2,"source":"ticker","line":"tick #2"}`));
      expect(logText(r)).toContain(`debug "Last tick": {"count":1,"source":"ticker","line":"tick #1"}`);
    },
    TEST_TIMEOUT,
  );

  test(
    "uptime-probe probes each target in turn: answers reach Up, failures reach Down through the error port",
    async () => {
      const target = Bun.serve({
        port: 0,
        hostname: "127.0.0.1",
        fetch: (req) => (new URL(req.url).pathname === "/ok" ? new Response("fine") : new Response("broken", { status: 500 })),
      });
      try {
        const ok = `http://127.0.0.1:${target.port}/ok`;
        const bad = `http://127.0.0.1:${target.port}/bad`;
        const desc = uptimeProbe({ targets: [ok, bad], delayMs: 60_000, stepDelayMs: 10 });
        const r = runLocal(writeFlow(desc));
        await waitLog(r, "the Up line", (t) => t.includes(`debug "Up": {"url":"${ok}","status":200`));
        await waitLog(r, "the Down line", (t) => t.includes(`debug "Down": {"url":"${bad}","error":"broken","retryable":true}`));
      } finally {
        void target.stop(true);
      }
    },
    TEST_TIMEOUT,
  );

  test(
    "the committed uptime-probe starts every node and probes its targets (Up or Down)",
    async () => {
      const desc = examples()["uptime-probe"]!;
      const r = runLocal(copyExample("uptime-probe"));
      for (const key of Object.keys(desc.nodes)) {
        await waitLog(r, `node ${key} OK`, (t) => t.includes(`node ${shown(desc, key)}  ${desc.nodes[key]!.component}  OK`));
      }
      // Every debug message is printed: a line for a target, up or down.
      const targets = ["https://example.com", "https://example.org"].map((u) => `{"url":${JSON.stringify(u)}`);
      await waitLog(r, "an Up or Down line for a target", (t) => targets.some((p) => t.includes(p)), 40_000);
    },
    TEST_TIMEOUT,
  );

  test(
    "the committed pod-report filters, groups and splits the pods, and collects the report lines into its display panel",
    async () => {
      const dir = copyExample("pod-report");
      const r = runLocal(dir);
      await waitLog(r, "the first restarted pod", (t) => t.includes(`debug "Check first": {"pod":"api-7f9c","restarts":4}`));
      await waitLog(r, "the groups by app", (t) => t.includes(`debug "Restarts by app": {"apps":[{"key":"api",`));
      const panel = nodeNameOf(podReport(), "panel");
      const text = "Restarted pods (report-1): **api-7f9c** (api): 4 restarts, **web-5c3a** (web): 1 restarts, **worker-9e0f** (worker): 12 restarts";
      await waitUntil("the display panel's text in node state", async () => stateIn(dir, panel, "text") === text, 30_000);
    },
    TEST_TIMEOUT,
  );

  test(
    "the committed status-board stores in kv, retries its flaky hook, attaches the owner, groups by state, and keeps the records across a restart",
    async () => {
      const dir = copyExample("status-board");
      const port = freePort();
      const first = runLocal(dir, port);
      const url = await waitListening(first);
      expect(await call(`${url}/status?id=api&state=DOWN`, { method: "POST" })).toMatchObject({
        status: 201,
        body: "stored api; the hook took it on attempt 2",
      });
      expect(await call(`${url}/status?id=web&state=UP`, { method: "POST" })).toMatchObject({ status: 201 });
      expect(await call(`${url}/owner?name=ana`, { method: "POST" })).toMatchObject({ status: 200, body: "owner is ana" });
      const api = { key: "api", document: { id: "api", state: "DOWN" } };
      const web = { key: "web", document: { id: "web", state: "UP" } };
      const all = await call(`${url}/status`);
      expect(all.type).toContain("application/json");
      expect(JSON.parse(all.body)).toEqual({
        context: { owner: "ana" },
        groups: [
          { key: "DOWN", items: [api], count: 1 },
          { key: "UP", items: [web], count: 1 },
        ],
        total: 2,
      });
      expect(JSON.parse((await call(`${url}/down`)).body)).toEqual({ context: { owner: "ana" }, groups: [{ key: "DOWN", items: [api], count: 1 }], total: 1 });
      const store = nodeNameOf(statusBoard(), "store");
      await waitUntil("both records in the state file", async () => stateIn(dir, store, "web") !== undefined, 20_000);
      expect(stateIn(dir, store, "api")).toBe('{"id":"api","state":"DOWN"}');
      await first.proc.stop();
      const second = runLocal(dir, port);
      await waitListening(second);
      expect(JSON.parse((await call(`${url}/status`)).body)).toMatchObject({ context: { owner: "ana" }, total: 2 });
    },
    TEST_TIMEOUT,
  );

  test(
    "a restart resumes the counter where it stopped",
    async () => {
      const dir = copyExample("tick-count");
      const counter = nodeNameOf(tickCount(), "counter");
      const first = runLocal(dir);
      await waitUntil("count ≥ 2", async () => countIn(dir, counter) >= 2, 30_000);
      await first.proc.stop();
      expect(await first.proc.exited).toBe(0);
      const before = countIn(dir, counter);
      expect(before).toBeGreaterThanOrEqual(2);
      const second = runLocal(dir);
      await waitLog(second, "the ticker resumes", (t) => t.includes(`node ${shown(tickCount(), "ticker")}  ticker  OK`));
      await waitUntil(`count > ${before} after restart`, async () => countIn(dir, counter) > before, 30_000);
    },
    TEST_TIMEOUT,
  );

  test(
    "a YAML edit changes routing without a restart",
    async () => {
      const dir = copyExample("hello-api");
      const r = runLocal(dir);
      const url = await waitListening(r);
      expect((await call(`${url}/a`)).status).toBe(200);
      // Route GET nowhere: its condition now matches HEAD only, so GET falls to the default port.
      const edited = helloApi();
      const edge = edited.edges!.find((e) => e.to === "router:input")!;
      (edge.configuration as { conditions: { route: string; condition: string }[] }).conditions[0]!.condition = "{{$.method == 'HEAD'}}";
      writeFlow(edited, dir);
      await waitUntil("GET answered by the default port", async () => (await call(`${url}/a`)).status === 404, 20_000);
      expect((await call(`${url}/a`)).body).toBe("no route for GET /a");
      expect(logText(r).split("tinyhost local: module").length - 1).toBe(1); // one start: no restart happened
    },
    TEST_TIMEOUT,
  );

  test(
    "a broken node file is reported naming the file and node, and the rest keeps serving",
    async () => {
      const dir = copyExample("hello-api");
      const r = runLocal(dir);
      const url = await waitListening(r);
      writeFileSync(join(dir, "broken.yaml"), "apiVersion: operator.tinysystems.io/v1alpha1\nkind: TinyNode\nmetadata:\n  name: [oops\n");
      writeFileSync(
        join(dir, "ghost.yaml"),
        "apiVersion: operator.tinysystems.io/v1alpha1\nkind: TinyNode\nmetadata:\n  name: e55788cb.tinyhost.ghost-00000\nspec:\n  module: tinyhost\n  component: ghost\n",
      );
      await waitLog(r, "the syntax error", (t) => new RegExp(`error: ${join(dir, "broken.yaml").replaceAll("/", "\\/")}:\\d+:\\d+: `).test(t));
      await waitLog(r, "the unknown component", (t) =>
        t.includes(`error: ${join(dir, "ghost.yaml")}:1: node e55788cb.tinyhost.ghost-00000: component "ghost" is not registered`),
      );
      await expectHelloApi(url);
    },
    TEST_TIMEOUT,
  );
});
