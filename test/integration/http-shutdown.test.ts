/**
 * SIGTERM with in-flight HTTP requests (issue 21): the requests complete (the host drains its
 * nodes' HTTP listeners before it stops the runners), a new connection is refused, and the
 * process exits 0. Local mode (`run --local`) and cluster mode (`run` on the real control plane
 * and NATS). The flow: signal → http_server.start; request → delay (1.5 s) → http_server.response.
 * In the third test the delay runs in another module, so each request's answer comes back over
 * the wire while the http_server's process is stopping: the HTTP drain must end before that
 * process stops receiving hops. Each run prints the time from SIGTERM to exit.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { exampleFiles } from "../../examples/generate.ts";
import { buildFlow, type FlowDescription } from "../../src/cli/scaffold/flow-builder.ts";
import { openClusterFixture } from "../support/cluster-fixture.ts";
import {
  applyObjects,
  createRelease,
  flowObjects,
  moveNodeToModule,
  nodesByComponent,
  sendSignal,
  waitForMetadata,
  waitForReconciled,
} from "../support/flows.ts";
import { startModuleProcess } from "../support/module-process.ts";
import { freePort, startProcess, tail, waitUntil, type ManagedProcess } from "../support/process.ts";

const ROOT = resolve(import.meta.dir, "../..");
const SLOW_MS = 1_500;
const REQUESTS = 5;

const procs: ManagedProcess[] = [];
const temps: string[] = [];
afterEach(async () => {
  await Promise.all(procs.splice(0).map((p) => p.stop(9_000)));
});
afterAll(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

function slowApi(module: string): FlowDescription {
  return {
    project: "shutdown-test",
    flow: "slow-api",
    module,
    nodes: {
      start: { component: "signal", label: "Start", settings: { context: {} }, startSignal: { send: true } },
      server: { component: "http_server", label: "Server", settings: { enableStatusPort: false, enableStopPort: false, maxBodySize: 1 } },
      wait: { component: "delay", label: "Slow step" },
    },
    edges: [
      { from: "start:out", to: "server:start", configuration: { context: "{{$}}", autoHostName: false, readTimeout: 60, writeTimeout: 30 } },
      { from: "server:request", to: "wait:in", configuration: { context: "{{$}}", delay: SLOW_MS } },
      { from: "wait:out", to: "server:response", configuration: { statusCode: 200, contentType: "text/plain", body: "finished {{$.context.path}}" } },
    ],
  };
}

/**
 * Sends {@link REQUESTS} slow requests, SIGTERMs `proc` while they are in flight, and checks that
 * they all complete, that a new connection is refused, and that the process exits 0.
 * @returns milliseconds from SIGTERM to exit.
 */
async function sigtermWithRequestsInFlight(proc: ManagedProcess, base: string, logFile: string): Promise<number> {
  const sent = Array.from({ length: REQUESTS }, (_, i) =>
    fetch(`${base}/r${i}`).then(
      async (r) => ({ status: r.status, body: await r.text() }),
      (e: Error) => ({ status: -1, body: e.message }),
    ),
  );
  await Bun.sleep(400); // every request is in its 1.5 s delay now
  const t0 = performance.now();
  process.kill(proc.pid, "SIGTERM");
  await Bun.sleep(200);
  const late = await fetch(`${base}/late`).then(
    (r) => `answered ${r.status}`,
    (e: { code?: string; message: string }) => `refused ${e.code ?? e.message}`,
  );
  const answers = await Promise.all(sent);
  const code = await Promise.race([proc.exited, Bun.sleep(20_000).then(() => "still running 20 s after SIGTERM")]);
  const ms = Math.round(performance.now() - t0);
  if (code !== 0) throw new Error(`exit ${code}\n--- log ---\n${await tail(logFile, 40)}`);
  expect(answers).toEqual(Array.from({ length: REQUESTS }, (_, i) => ({ status: 200, body: `finished /r${i}` })));
  expect(late).toStartWith("refused");
  return ms;
}

/**
 * Runs {@link slowApi} on the real control plane and NATS: module `front` (pod `front-0`) hosts it,
 * the nodes named in `elsewhere` move to module `back` (its own process, started only then); the
 * flow is started and its server answers.
 * @returns the front module's process and the server's base URL.
 */
async function slowApiOnCluster(prefix: string, elsewhere: readonly string[]): Promise<{ server: ManagedProcess & { logFile: string }; base: string }> {
  const natsUrl = process.env.TINYHOST_TEST_NATS_URL;
  if (!natsUrl) throw new Error("TINYHOST_TEST_NATS_URL is not set: run through test/support/run-integration.ts");
  const { cp, kube, dir } = await openClusterFixture("http-shutdown");
  const ns = await cp.newNamespace(prefix);
  await createRelease(kube, ns, { release: "front", pods: ["front-0"] });
  const logDir = join(dir, ns);
  mkdirSync(logDir);
  const start = (hostname: string, name: string) =>
    startModuleProcess({ hostname, name, namespace: ns, kubeconfig: cp.tokenKubeconfig, components: "components", env: { TINY_NATS_URL: natsUrl }, logDir });
  const started = await Promise.all([start("front-0", "front"), ...(elsewhere.length ? [start("back-0", "back")] : [])]);
  procs.push(...started);
  const manifests = buildFlow(slowApi("front"));
  for (const key of elsewhere) moveNodeToModule(manifests, key, "back");
  const objects = flowObjects(manifests, ns);
  await applyObjects(kube, ns, objects);
  const names = nodesByComponent(objects);
  await waitForReconciled(kube, ns, Object.values(names));
  await sendSignal(natsUrl, names.signal!, "_control", { send: true });
  const port = Number(await waitForMetadata(kube, ns, names.http_server!, "port"));
  const base = `http://127.0.0.1:${port}`;
  await waitUntil("the server answers", async () => (await fetch(`${base}/warm`).catch(() => undefined))?.status === 200, 15_000);
  return { server: started[0]!, base };
}

describe("SIGTERM with in-flight HTTP requests", () => {
  test("local mode: every in-flight request completes, a new connection is refused, the process exits 0", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tinyhost-shutdown-"));
    temps.push(dir);
    for (const f of exampleFiles(slowApi("tinyhost"))) writeFileSync(join(dir, f.name), f.text);
    const port = freePort();
    const logFile = join(dir, "tinyhost.log");
    const proc = startProcess({
      name: "tinyhost",
      cmd: [process.execPath, "src/cli/main.ts", "run", "--local", dir, "--port", String(port), "--no-console"],
      logFile,
      cwd: ROOT,
      env: { TINYHOST_LOG_LEVEL: "warn" },
    });
    procs.push(proc);
    const base = `http://localhost:${port}`;
    await waitUntil(`listening on ${base}`, async () => readFileSync(logFile, "utf8").includes(`listening on ${base}`), 30_000).catch(async (e: Error) => {
      throw new Error(`${e.message}\n--- log ---\n${await tail(logFile, 40)}`);
    });
    const ms = await sigtermWithRequestsInFlight(proc, base, logFile);
    console.log(`[http-shutdown local] ${REQUESTS} requests in flight (${SLOW_MS} ms each, SIGTERM ~400 ms in): SIGTERM → exit ${ms} ms`);
  }, 60_000);

  test("cluster mode: every in-flight request completes, a new connection is refused, the process exits 0", async () => {
    const { server, base } = await slowApiOnCluster("http-shutdown", []);
    const ms = await sigtermWithRequestsInFlight(server, base, server.logFile);
    const log = readFileSync(server.logFile, "utf8");
    expect(log).toContain('"msg":"http listeners drained"');
    console.log(`[http-shutdown cluster] ${REQUESTS} requests in flight (${SLOW_MS} ms each, SIGTERM ~400 ms in): SIGTERM → exit ${ms} ms`);
  }, 120_000);

  test("cluster mode, the flow's slow step in another module: the answers still come back over NATS while the server's process stops", async () => {
    // request → back (delay) → front (response): both hops on the wire
    const { server, base } = await slowApiOnCluster("http-shutdown-x", ["wait"]);
    const ms = await sigtermWithRequestsInFlight(server, base, server.logFile);
    console.log(`[http-shutdown cross-module] ${REQUESTS} requests in flight through another module: SIGTERM → exit ${ms} ms`);
  }, 120_000);
});
