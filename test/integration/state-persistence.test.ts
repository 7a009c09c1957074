/**
 * Issue 21 "no silent loss of state", on the real thing: a `state.set` followed at once — inside
 * the 1 s status window, before any debounced write — by a SIGTERM of a cluster module (real
 * kube-apiserver), by a hot reload of the component file in local mode, and by a local-mode stop,
 * is there afterwards. The fixture's set is not awaited (test/fixtures/state-components/keeper.ts),
 * so only the stop/reload flush can have written it.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { appendFileSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { KubeClient } from "../../src/k8s/client/index.ts";
import { base64Json, sanitizeResourceName, type TinyNode } from "../../src/core/api/index.ts";
import { tinyNodes } from "../../src/k8s/controllers/index.ts";
import { LocalHost } from "../../src/local/host.ts";
import { nodeNameOf, renderFlowFiles, type FlowDescription } from "../../src/cli/scaffold/flow-builder.ts";
import type { ControlPlane } from "../support/control-plane.ts";
import { openClusterFixture } from "../support/cluster-fixture.ts";
import { startModuleProcess, type ModuleProcess } from "../support/module-process.ts";
import { waitUntil } from "../support/process.ts";

const FIXTURES = resolve(import.meta.dir, "../fixtures/state-components");
const MODULE = "tinysystems/state-test";
const SANITIZED = sanitizeResourceName(MODULE);
const b64 = (text: string) => Buffer.from(text).toString("base64");

interface Event {
  pod: string;
  hook: string;
  node: string;
  value?: unknown;
}

function events(file: string): Event[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Event);
}

describe("cluster: state.set then at once SIGTERM (real apiserver)", () => {
  let cp: ControlPlane;
  let kube: KubeClient;
  let dir: string;
  const procs: ModuleProcess[] = [];
  afterAll(async () => {
    await Promise.all(procs.map((p) => p.stop(9000)));
  });

  async function pod(ns: string, hostname: string, rec: string): Promise<ModuleProcess> {
    const p = await startModuleProcess({
      hostname,
      name: MODULE,
      namespace: ns,
      kubeconfig: cp.tokenKubeconfig,
      logDir: dir,
      components: FIXTURES,
      env: { RECORDER_FILE: rec },
    });
    procs.push(p);
    return p;
  }

  test("the value set just before the SIGTERM is in the node's status afterwards, and the restarted module reads it", async () => {
    ({ cp, kube, dir } = await openClusterFixture("state-persistence"));
    const ns = await cp.newNamespace("state-term");
    const rec = join(dir, `${ns}.jsonl`);
    const a = await pod(ns, "pod-a", rec);
    const node: TinyNode = {
      metadata: { name: `a1b2c3d4.${SANITIZED}.keeper-t1a2b`, namespace: ns },
      spec: { module: MODULE, component: "keeper", ports: [{ port: "_settings", configuration: base64Json({ value: "first" }) }] },
    };
    const name = (await kube.create(tinyNodes, node, { namespace: ns })).metadata.name!;
    const stored = async () => (await kube.get(tinyNodes, name, ns)).status?.metadata?.["_state/value"];
    await waitUntil("the first value written by the 1 s status window", async () => (await stored()) === b64("first"), 20_000, 100);

    await kube.mergePatch(tinyNodes, name, { spec: { ports: [{ port: "_settings", configuration: base64Json({ value: "second" }) }] } }, { namespace: ns });
    await waitUntil(
      "pod-a set the second value",
      async () => events(rec).some((e) => e.pod === "pod-a" && e.hook === "set" && e.value === "second"),
      20_000,
      10,
    );
    // SIGTERM now — tens of ms after the set, inside the 1 s window, so only the shutdown flush
    // can write "second" — and wait for the exit.
    await a.stop(9000);
    expect(await stored()).toBe(b64("second"));

    await pod(ns, "pod-b", rec);
    await waitUntil("pod-b read the state on its first reconcile", async () => events(rec).some((e) => e.pod === "pod-b" && e.hook === "read"), 30_000, 100);
    expect(events(rec).find((e) => e.pod === "pod-b" && e.hook === "read")?.value).toBe("second");
  }, 900_000);
});

describe("local mode: state.set then at once a hot reload, or a stop", () => {
  const hosts: LocalHost[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const h of hosts.splice(0)) await h.stop();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  function tempDir(): string {
    const d = mkdtempSync(join(tmpdir(), "tinyhost-state-"));
    dirs.push(d);
    return d;
  }

  const FLOW: FlowDescription = { project: "p", flow: "keep", module: "mod", nodes: { k: { component: "keeper" } } };
  const NODE = nodeNameOf(FLOW, "k");

  /** A manifests dir with one keeper node and a components dir with the fixture. */
  function bed(): { dir: string; cdir: string; file: string } {
    const dir = tempDir();
    for (const f of renderFlowFiles(FLOW)) writeFileSync(join(dir, f.name), f.text);
    const cdir = tempDir();
    const file = join(cdir, "keeper.ts");
    copyFileSync(join(FIXTURES, "keeper.ts"), file);
    return { dir, cdir, file };
  }

  /** Local mode with its state file, the file watches on, and a 5 s status window: nothing is written by the window during a test step. */
  async function startHost(dir: string, cdir: string, lines: string[] = []): Promise<LocalHost> {
    const host = await LocalHost.start({
      dir,
      componentsDir: cdir,
      watch: true,
      watchDebounceMs: 20,
      debounceMs: 5000,
      resyncMs: 0,
      report: (l) => lines.push(l),
    });
    hosts.push(host);
    return host;
  }

  async function get(host: LocalHost): Promise<unknown> {
    const r = await host.send(NODE, "get", {});
    if (r.kind !== "ok") throw new Error(`get failed: ${r.kind === "fail" ? r.error.message : r.kind}`);
    return (r.value as { value: unknown }).value;
  }

  test("a hot reload (the component file edited) right after a set: the new runner reads the value when it starts, and it is stored", async () => {
    const { dir, cdir, file } = bed();
    const rec = join(tempDir(), "events.jsonl");
    process.env.RECORDER_FILE = rec; // the fixture records its first read per runner (it runs in this process)
    const lines: string[] = [];
    const host = await startHost(dir, cdir, lines);
    await Bun.sleep(100); // the watch is open
    const before = host.scheduler.runner(NODE)!;
    expect((await host.send(NODE, "set", { value: "before-reload" })).kind).toBe("ok");
    appendFileSync(file, "\n// edited: hot reload\n");
    await waitUntil(
      "the reload recreated the node",
      async () => host.scheduler.runner(NODE) !== undefined && host.scheduler.runner(NODE) !== before,
      10_000,
      10,
    );
    expect(lines.some((l) => l.startsWith("reloaded ") && l.includes("(keeper): recreating 1 node"))).toBe(true);
    delete process.env.RECORDER_FILE;
    // The new runner's first reconcile (onState → onReconcile) read it — before the watch delivered the old runner's flush.
    expect(
      events(rec)
        .filter((e) => e.hook === "read")
        .map((e) => e.value),
    ).toEqual([null, "before-reload"]);
    expect(await get(host)).toBe("before-reload");
    expect(host.status(NODE)?.metadata?.["_state/value"]).toBe(b64("before-reload")); // flushed by the old runner, not by the 5 s window
  }, 60_000);

  test("a stop right after a set: the next start reads the value from the state file", async () => {
    const { dir, cdir } = bed();
    const first = await startHost(dir, cdir);
    expect((await first.send(NODE, "set", { value: "before-stop" })).kind).toBe("ok");
    await first.stop();
    hosts.splice(hosts.indexOf(first), 1);
    const saved = JSON.parse(readFileSync(join(dir, ".tinyhost/state.json"), "utf8")) as {
      nodes: Record<string, { status: { metadata?: Record<string, string> } }>;
    };
    expect(saved.nodes[NODE]?.status.metadata?.["_state/value"]).toBe(b64("before-stop"));
    const second = await startHost(dir, cdir);
    expect(await get(second)).toBe("before-stop");
  }, 60_000);
});
