/**
 * Fault isolation on the real servers (issue 21 item 2): a module process (`tinyhost run` against
 * kube-apiserver + etcd, hops over nats-server) and local mode (`tinyhost run --local`) run the
 * `faulty` fixture (test/fixtures/fault-components) with one node per site — every hook, a
 * `_reconcile` updater, a `ports()` re-read, an SDK timer, task and background loop — plus a bare
 * timer and a forgotten promise only the process-level last resort sees, and a healthy node. The
 * process stays up, the healthy node keeps answering, each guarded fault shows on its node's status
 * naming node and site, its log line names the node, and the counters count them.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { KubeClient } from "../../src/k8s/client/index.ts";
import { base64Json, sanitizeResourceName, type TinyNode } from "../../src/core/api/index.ts";
import { tinyNodes } from "../../src/k8s/controllers/index.ts";
import { connectNats } from "../../src/transport/nats/connect.ts";
import { publishToNode } from "../../src/transport/nats/publish.ts";
import { exampleFiles } from "../../examples/generate.ts";
import { nodeNameOf, type FlowDescription } from "../../src/cli/scaffold/flow-builder.ts";
import { sendToConsole } from "../../src/console/client.ts";
import type { FlowView } from "../../src/console/flow-view.ts";
import type { ControlPlane } from "../support/control-plane.ts";
import { openClusterFixture } from "../support/cluster-fixture.ts";
import { startModuleProcess, type ModuleProcess } from "../support/module-process.ts";
import { freePort, startProcess, tail, waitUntil, type ManagedProcess } from "../support/process.ts";
import { FAULT_SUFFIX } from "../fixtures/fault-components/faulty.ts";

const ROOT = resolve(import.meta.dir, "../..");
const COMPONENTS = "test/fixtures/fault-components";
const MODULE = "tinysystems/fault-test";
const SANITIZED = sanitizeResourceName(MODULE);
const HEALTHY = "00000";
/** Suffixes whose fault the guard catches and the status shows, with the site it names. */
const GUARDED = Object.entries(FAULT_SUFFIX).filter(
  ([s, site]) => s !== HEALTHY && site !== "bare timer" && site !== "forgotten promise" && site !== "huge onSettings",
);
/** The node whose onSettings throws a 2 MB message. */
const HUGE = Object.entries(FAULT_SUFFIX).find(([, site]) => site === "huge onSettings")![0];
const LAST_RESORT = Object.entries(FAULT_SUFFIX).filter(([, site]) => site === "bare timer" || site === "forgotten promise");

/** JSON log lines of a file (pino): the ones that parse. */
function logLines(file: string): Record<string, unknown>[] {
  if (!existsSync(file)) return [];
  const out: Record<string, unknown>[] = [];
  for (const l of readFileSync(file, "utf8").split("\n")) {
    if (!l.startsWith("{")) continue;
    try {
      out.push(JSON.parse(l));
    } catch {
      // a line cut mid-write
    }
  }
  return out;
}

/** The guard's line for `site` on `node`, if logged. */
const faultLine = (file: string, node: string, site: string) =>
  logLines(file).find((l) => l.node === node && l.site === site && String(l.msg ?? "").includes(`failed in ${site}`));

/** Last-resort lines attributed to the fixture's file. */
const lastResortLines = (file: string) => logLines(file).filter((l) => String(l.msg ?? "").includes("last resort") && String(l.at ?? "").includes("faulty.ts"));

describe("fault isolation: a module on the real control plane and NATS", () => {
  let cp: ControlPlane;
  let kube: KubeClient;
  let dir: string;
  let proc: ModuleProcess | undefined;

  beforeAll(async () => {
    ({ cp, kube, dir } = await openClusterFixture("fault-isolation"));
  }, 900_000);

  afterAll(async () => {
    await proc?.stop(9000);
  });

  test("every site faults only its node: status names node and site, the log line names the node, the process keeps serving", async () => {
    const natsUrl = process.env.TINYHOST_TEST_NATS_URL;
    if (!natsUrl) throw new Error("TINYHOST_TEST_NATS_URL is not set: run through test/support/run-integration.ts");
    const ns = await cp.newNamespace("faults");
    proc = await startModuleProcess({
      hostname: "pod-faults",
      name: MODULE,
      namespace: ns,
      kubeconfig: cp.tokenKubeconfig,
      logDir: dir,
      components: COMPONENTS,
      env: { TINY_NATS_URL: natsUrl },
    });
    const name = (suffix: string) => `a1b2c3d4.${SANITIZED}.faulty-${suffix}`;
    for (const suffix of Object.keys(FAULT_SUFFIX)) {
      const node: TinyNode = {
        metadata: { name: name(suffix), namespace: ns },
        spec: { module: MODULE, component: "faulty", ports: [{ port: "_settings", configuration: base64Json({ label: suffix }) }] },
      };
      await kube.create(tinyNodes, node, { namespace: ns });
    }
    const statusOf = async (suffix: string) => (await kube.get(tinyNodes, name(suffix), ns)).status;
    try {
      for (const [suffix, site] of GUARDED) {
        await waitUntil(
          `${site} fault on ${name(suffix)}'s status`,
          async () => {
            const st = await statusOf(suffix);
            return st?.error === true && (st.status ?? "").includes(`failed in ${site}`);
          },
          30_000,
          200,
        );
        const st = await statusOf(suffix);
        expect(st?.status).toContain(`node ${name(suffix)} (component faulty) failed in ${site}: fixture fault in ${site}`);
        await waitUntil(`log line of ${site}`, async () => faultLine(proc!.logFile, name(suffix), site) !== undefined, 10_000, 100);
      }
      // A 2 MB message still shows: the status text is cut to 4,096 characters, so its write fits
      // etcd's request limit; the log does not carry the 2 MB either (it grew 58 MB in 40 s before).
      await waitUntil(`the huge fault on ${name(HUGE)}'s status`, async () => (await statusOf(HUGE))?.error === true, 30_000, 200);
      const huge = (await statusOf(HUGE))!.status!;
      expect(huge).toStartWith(`node ${name(HUGE)} (component faulty) failed in onSettings: huge fixture fault xxx`);
      expect(huge.length).toBeLessThanOrEqual(4_096);
      expect(huge).toMatch(/… \(\d+ more characters\)$/);
      expect(statSync(proc.logFile).size).toBeLessThan(1_000_000);
      // The bare timer and the forgotten promise reached only the last resort: logged with the fixture's frame, counted.
      await waitUntil("two last-resort lines", async () => lastResortLines(proc!.logFile).length >= LAST_RESORT.length, 10_000, 100);
      expect(new Set(lastResortLines(proc.logFile).map((l) => l.kind))).toEqual(new Set(["uncaught exception", "unhandled rejection"]));
      expect(await proc.metric("tinyhost_uncaught_errors_total")).toBeGreaterThanOrEqual(LAST_RESORT.length);
      for (const site of ["timer", "ports()", "_reconcile updater", "onIdentity"]) {
        expect(await proc.metric(`tinyhost_component_faults_total{site="${site}"}`)).toBeGreaterThanOrEqual(1);
      }
      // The process is up and the healthy node answers; a throw in its handle fails only that hop.
      expect((await proc.readyz())?.status).toBe(200);
      expect((await statusOf(HEALTHY))?.status).toBe("OK");
      const nc = await connectNats(natsUrl, { name: "fault-isolation-test" });
      try {
        const hop = async (text: string) => (await publishToNode(nc, name(HEALTHY), "in", { text }, { wait: true, timeoutMs: 10_000 })).result;
        /** The JSON of an ok reply (the wire hands back the bytes). */
        const answered = (r: Awaited<ReturnType<typeof hop>>) =>
          r.kind === "ok" && r.value instanceof Uint8Array ? JSON.parse(new TextDecoder().decode(r.value)) : r;
        expect(answered(await hop("hello"))).toEqual({ echo: "hello" });
        const thrown = await hop("throw");
        expect(thrown.kind).toBe("fail");
        expect(thrown.kind === "fail" ? thrown.error.message : "").toContain("fixture fault in handle");
        expect(answered(await hop("again"))).toEqual({ echo: "again" });
      } finally {
        await nc.close();
      }
      expect(await proc.metric('tinyhost_component_faults_total{site="handle"}')).toBeGreaterThanOrEqual(1);
      expect((await statusOf(HEALTHY))?.status).toBe("OK");
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- ${proc.logFile} ---\n${await tail(proc.logFile, 40)}`);
    }
  }, 120_000);
});

describe("fault isolation: local mode", () => {
  const temps: string[] = [];
  let proc: ManagedProcess | undefined;
  afterEach(async () => {
    await proc?.stop();
    proc = undefined;
    for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  test("every site faults only its node in run --local: the console shows each fault with its site, the healthy node answers", async () => {
    const dir = mkdtempSync(join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "faults-local-"));
    temps.push(dir);
    const desc: FlowDescription = {
      project: "faults",
      flow: "faults",
      module: "tinyhost",
      nodes: Object.fromEntries(
        Object.entries(FAULT_SUFFIX).map(([suffix]) => [suffix, { component: "faulty", label: `faulty ${suffix}`, settings: { label: suffix }, suffix }]),
      ),
    };
    for (const f of exampleFiles(desc)) writeFileSync(join(dir, f.name), f.text);
    const log = join(dir, "tinyhost.log");
    const consolePort = freePort();
    const healthPort = freePort();
    proc = startProcess({
      name: "tinyhost local",
      cmd: [
        process.execPath,
        "src/cli/main.ts",
        "run",
        "--local",
        dir,
        "--components",
        COMPONENTS,
        "--no-state",
        "--port",
        String(freePort()),
        "--console",
        `127.0.0.1:${consolePort}`,
        "--health-probe-bind-address",
        `127.0.0.1:${healthPort}`,
      ],
      logFile: log,
      cwd: ROOT,
      env: { TINYHOST_LOG_LEVEL: "info" },
    });
    const consoleUrl = `http://127.0.0.1:${consolePort}`;
    const flow = async (): Promise<FlowView | undefined> => {
      try {
        return (await (await fetch(`${consoleUrl}/api/flow`)).json()) as FlowView;
      } catch {
        return undefined;
      }
    };
    const nodeOf = (v: FlowView | undefined, suffix: string) => v?.nodes.find((n) => n.name === nodeNameOf(desc, suffix));
    try {
      for (const [suffix, site] of GUARDED) {
        const node = nodeNameOf(desc, suffix);
        await waitUntil(
          `${site} fault on ${node} in the console`,
          async () => {
            const n = nodeOf(await flow(), suffix);
            return n?.error === true && n.status.includes(`failed in ${site}`);
          },
          30_000,
          200,
        );
        expect(nodeOf(await flow(), suffix)?.status).toContain(`node ${node} (component faulty) failed in ${site}: fixture fault in ${site}`);
        // The terminal's human line names the node by its label (src/local/node-names.ts).
        const human = `node "faulty ${suffix}": component faulty failed in ${site}: fixture fault in ${site}`;
        await waitUntil(`terminal line of ${site}`, async () => existsSync(log) && readFileSync(log, "utf8").includes(human), 10_000, 100);
      }
      // Local mode prints them as terminal lines, with the component's file and line.
      const humanLastResort = () =>
        readFileSync(log, "utf8")
          .split("\n")
          .filter((l) => l.includes("caught by the last resort") && l.includes("faulty.ts:"));
      await waitUntil("two last-resort lines", async () => humanLastResort().length >= LAST_RESORT.length, 10_000, 100);
      expect(humanLastResort().some((l) => l.includes("serving on: fixture fault in bare timer (at="))).toBe(true);
      const metrics = await (await fetch(`http://127.0.0.1:${healthPort}/metrics`)).text();
      expect(metrics).toMatch(/^tinyhost_component_faults_total\{site="background loop"\} [1-9]/m);
      expect(metrics).toMatch(/^tinyhost_uncaught_errors_total [2-9]/m);
      expect(nodeOf(await flow(), HEALTHY)?.status).toBe("OK");
      const answer = await sendToConsole(consoleUrl, nodeNameOf(desc, HEALTHY), "in", { text: "hello" }, { wait: true, timeoutMs: 10_000 });
      expect(answer.result).toBe("ok");
      expect(answer.result === "ok" ? JSON.parse(answer.value) : undefined).toEqual({ echo: "hello" });
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- ${log} ---\n${await tail(log, 40)}`);
    }
  }, 120_000);
});
