/**
 * `tinyhost run` against the real control plane: a TinyNode's lifecycle through the TinyNode
 * controller (runner, status, settings, finalizer, onDestroy), the module's own TinyModule, and a
 * status write racing another writer. One module process per test (it leads alone at once).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { isNotFound, type KubeClient } from "../../src/k8s/client/index.ts";
import { NODE_FINALIZER, sanitizeResourceName, base64Json, decodeBase64Json } from "../../src/core/api/index.ts";
import type { TinyNode } from "../../src/core/api/index.ts";
import { tinyModules, tinyNodes } from "../../src/k8s/controllers/index.ts";
import { SDK_VERSION, version as tinyhostVersion } from "../../src/core/version.ts";
import { TINYHOST_VERSION_ANNOTATION } from "../../src/operator/index.ts";
import type { ControlPlane } from "../support/control-plane.ts";
import { openClusterFixture } from "../support/cluster-fixture.ts";
import { startModuleProcess, type ModuleProcess } from "../support/module-process.ts";
import { waitUntil } from "../support/process.ts";

const MODULE = "tinysystems/operator-test";
const SANITIZED = sanitizeResourceName(MODULE);

let cp: ControlPlane;
let kube: KubeClient;
let dir: string;
const procs: ModuleProcess[] = [];

beforeAll(async () => {
  ({ cp, kube, dir } = await openClusterFixture("operator-nodes"));
}, 900_000);

afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop(9000)));
});

async function module(ns: string, hostname: string, recorder: string): Promise<ModuleProcess> {
  const p = await startModuleProcess({ hostname, name: MODULE, namespace: ns, kubeconfig: cp.tokenKubeconfig, logDir: dir, env: { RECORDER_FILE: recorder } });
  procs.push(p);
  return p;
}

function events(file: string): { pod: string; hook: string; node: string; value?: unknown }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

function newNode(ns: string, suffix: string, label: string): TinyNode {
  return {
    metadata: { name: `a1b2c3d4.${SANITIZED}.recorder-${suffix}`, namespace: ns },
    spec: { module: MODULE, component: "recorder", ports: [{ port: "_settings", configuration: base64Json({ label }) }] },
  };
}

async function nodeWhen(ns: string, name: string, what: string, cond: (n: TinyNode) => boolean, ms = 20_000): Promise<TinyNode> {
  let last: TinyNode | undefined;
  await waitUntil(
    what,
    async () => {
      last = await kube.get(tinyNodes, name, ns);
      return cond(last);
    },
    ms,
    100,
  );
  return last!;
}

describe("tinyhost run: TinyNode lifecycle on a real apiserver", () => {
  test("a created node gets a runner, the finalizer and an OK status with module, component, base64 port schemas and observedGeneration", async () => {
    const ns = await cp.newNamespace("op-node");
    const rec = join(dir, `${ns}.jsonl`);
    await module(ns, "pod-one", rec);
    const created = await kube.create(tinyNodes, newNode(ns, "x1a2b", "one"), { namespace: ns });
    const name = created.metadata.name!;
    const node = await nodeWhen(ns, name, "status written", (n) => n.status?.observedGeneration === n.metadata.generation && !!n.status?.module);
    expect(node.metadata.finalizers).toContain(NODE_FINALIZER);
    expect(node.status?.module).toEqual({ name: MODULE, version: "1.0.0", sdkVersion: SDK_VERSION });
    expect(node.status?.status).toBe("OK");
    expect(node.status?.error).toBeUndefined(); // Go: `error,omitempty`
    expect(node.status?.component?.description).toBe("Records lifecycle");
    expect(node.status?.lastUpdateTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const ports = node.status?.ports ?? [];
    expect(ports.map((p) => p.name)).toEqual(["_settings", "in", "out"]);
    for (const p of ports) {
      const schema = decodeBase64Json(p.schema, `ports[${p.name}].schema`);
      expect(typeof schema).toBe("object");
    }
    // The published configuration is what the component's ports() declares (runtime-spec §2.6), base64 JSON.
    expect(decodeBase64Json(ports[0]!.configuration, "configuration")).toEqual({ label: "none" });
    await waitUntil("onSettings(one)", async () => events(rec).some((e) => e.hook === "onSettings" && e.node === name && e.value === "one"), 10_000);
  }, 60_000);

  test("a spec change delivers the settings again and moves observedGeneration", async () => {
    const ns = await cp.newNamespace("op-spec");
    const rec = join(dir, `${ns}.jsonl`);
    await module(ns, "pod-one", rec);
    const name = (await kube.create(tinyNodes, newNode(ns, "s1a2b", "first"), { namespace: ns })).metadata.name!;
    await nodeWhen(ns, name, "first status", (n) => n.status?.observedGeneration === 1);
    await kube.mergePatch(tinyNodes, name, { spec: { ports: [{ port: "_settings", configuration: base64Json({ label: "second" }) }] } }, { namespace: ns });
    const node = await nodeWhen(ns, name, "observedGeneration 2", (n) => n.status?.observedGeneration === 2);
    expect(node.metadata.generation).toBe(2);
    await waitUntil("onSettings(second)", async () => events(rec).some((e) => e.hook === "onSettings" && e.node === name && e.value === "second"), 10_000);
    expect(
      events(rec)
        .filter((e) => e.hook === "onSettings")
        .map((e) => e.value),
    ).toEqual(["first", "second"]);
  }, 60_000);

  test("a deleted node runs onDestroy and its finalizer goes, so the object disappears", async () => {
    const ns = await cp.newNamespace("op-del");
    const rec = join(dir, `${ns}.jsonl`);
    await module(ns, "pod-one", rec);
    const name = (await kube.create(tinyNodes, newNode(ns, "d1a2b", "x"), { namespace: ns })).metadata.name!;
    await nodeWhen(ns, name, "finalizer and status", (n) => (n.metadata.finalizers ?? []).includes(NODE_FINALIZER) && n.status?.observedGeneration === 1);
    await kube.delete(tinyNodes, name, { namespace: ns });
    await waitUntil(
      "node gone",
      async () => {
        try {
          await kube.get(tinyNodes, name, ns);
          return false;
        } catch (err) {
          if (isNotFound(err)) return true;
          throw err;
        }
      },
      20_000,
    );
    expect(
      events(rec)
        .filter((e) => e.hook === "onDestroy")
        .map((e) => e.node),
    ).toEqual([name]);
  }, 60_000);

  test("the module's TinyModule is created and its status lists the components with base64 port schemas", async () => {
    const ns = await cp.newNamespace("op-mod");
    const p = await module(ns, "pod-one", join(dir, `${ns}.jsonl`));
    let mod = await kube.get(tinyModules, SANITIZED, ns);
    await waitUntil(
      "TinyModule status",
      async () => {
        mod = await kube.get(tinyModules, SANITIZED, ns);
        return (mod.status?.addr ?? "") !== "";
      },
      20_000,
    );
    expect(mod.spec?.image).toBe(`${MODULE}:1.0.0`);
    expect(mod.status?.name).toBe(MODULE);
    expect(mod.status?.version).toBe("1.0.0");
    expect(mod.status?.sdkVersion).toBe(SDK_VERSION);
    expect(mod.metadata.annotations?.[TINYHOST_VERSION_ANNOTATION]).toBe(tinyhostVersion);
    expect(mod.status?.addr).toMatch(/^127\.0\.0\.1:\d+$/);
    const recorder = mod.status?.components.find((c) => c.name === "recorder");
    expect(recorder?.description).toBe("Records lifecycle");
    expect(recorder?.tags).toEqual(["test"]);
    expect(recorder?.ports?.map((q) => q.name)).toEqual(["_settings", "in", "out"]);
    for (const port of recorder?.ports ?? []) expect(typeof decodeBase64Json(port.schema, "schema")).toBe("object");
    expect(await p.metric('tinyhost_status_writes_total{controller="tinymodule"}')).toBeGreaterThanOrEqual(1);
  }, 60_000);

  test("status writes racing another status writer are retried: the module's observedGeneration and the other writer's metadata both survive", async () => {
    const ns = await cp.newNamespace("op-race");
    const p = await module(ns, "pod-one", join(dir, `${ns}.jsonl`));
    const name = (await kube.create(tinyNodes, newNode(ns, "r1a2b", "g1"), { namespace: ns })).metadata.name!;
    await nodeWhen(ns, name, "first status", (n) => n.status?.observedGeneration === 1);
    const rounds = 8;
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < rounds; i++) {
      // Another writer (as a second replica's component would) patches status.metadata while specs change.
      writes.push(kube.mergePatch(tinyNodes, name, { status: { metadata: { [`other-${i}`]: String(i) } } } as never, { namespace: ns, subresource: "status" }));
      writes.push(
        kube.mergePatch(tinyNodes, name, { spec: { ports: [{ port: "_settings", configuration: base64Json({ label: `g${i + 2}` }) }] } }, { namespace: ns }),
      );
      await Bun.sleep(15);
    }
    await Promise.all(writes);
    const final = (await kube.get(tinyNodes, name, ns)).metadata.generation!;
    const node = await nodeWhen(ns, name, `observedGeneration ${final}`, (n) => n.status?.observedGeneration === final);
    for (let i = 0; i < rounds; i++) expect(node.status?.metadata?.[`other-${i}`]).toBe(String(i));
    expect(node.status?.status).toBe("OK");
    expect(node.status?.module?.name).toBe(MODULE);
    const conflicts = await p.metric('tinyhost_status_write_conflicts_total{controller="tinynode"}');
    console.log(`[op-race] generation ${final}, conflicts met and retried by the module: ${conflicts}`);
  }, 60_000);
});
