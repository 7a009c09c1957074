/**
 * A TinyComponent on a real kube-apiserver becomes a component of a running tinyhost module
 * (runtime-spec §5.3, issue 17): installed status and finalizer, a node of it runs and answers a
 * hop, an edit of the script reaches the running node, the TinyModule status lists it, and
 * deleting it uninstalls it, after which its node reports the missing component.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { headers as natsHeaders } from "@nats-io/transport-node";
import { type KubeClient } from "../../src/k8s/client/index.ts";
import type { TinyNode } from "../../src/core/api/index.ts";
import { tinyModules, tinyNodes } from "../../src/k8s/controllers/index.ts";
import { tinyComponents, type WatchedComponent } from "../../src/k8s/controllers/tinycomponent.ts";
import { connectNats } from "../../src/transport/nats/index.ts";
import { H_EMPTY, H_FROM, H_TO } from "../../src/transport/nats/wire.ts";
import { connectControlPlane, type ControlPlane } from "../support/control-plane.ts";
import { startModuleProcess, type ModuleProcess } from "../support/module-process.ts";
import { waitUntil } from "../support/process.ts";

const MODULE = "tinyhost";
const NODE = "a1b2c3d4.tinyhost.doubleit-1";
const SINK = "a1b2c3d4.sinkmod.sink-1";

let cp: ControlPlane;
let kube: KubeClient;
let proc: ModuleProcess | undefined;
let proc2: ModuleProcess | undefined;

beforeAll(async () => void ({ cp, kube } = await connectControlPlane()), 900_000);

afterAll(async () => {
  await proc?.stop(9000);
  await proc2?.stop(9000);
});

function definition(script: string): WatchedComponent {
  return {
    apiVersion: "operator.tinysystems.io/v1alpha1",
    kind: "TinyComponent",
    metadata: { name: "double-it" },
    spec: {
      component: "double_it",
      description: "Doubles n",
      script,
      input: JSON.stringify({ type: "object", properties: { n: { type: "integer" } }, example: { n: 1 } }),
      output: JSON.stringify({ type: "object", properties: { n: { type: "integer" } } }),
    },
  } as WatchedComponent;
}

test("a TinyComponent is installed, runs in a node, takes edits and leaves on delete", async () => {
  const natsUrl = process.env.TINYHOST_TEST_NATS_URL;
  if (!natsUrl) throw new Error("TINYHOST_TEST_NATS_URL is not set: run through test/support/run-integration.ts");
  const ns = await cp.newNamespace("tinycomponent");
  const dir = mkdtempSync(join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "tinycomponent-"));
  const emptyComponents = mkdtempSync(join(dir, "components-"));
  proc = await startModuleProcess({
    hostname: "pod-0",
    name: MODULE,
    namespace: ns,
    kubeconfig: cp.tokenKubeconfig,
    components: emptyComponents,
    env: { TINY_NATS_URL: natsUrl },
    logDir: dir,
  });

  // What the defined node emits on `response` goes to a node of a module this test plays on NATS.
  const nc = await connectNats(natsUrl, { name: "tinycomponent-sink" });
  const received: unknown[] = [];
  const sub = nc.subscribe("tinymodule.sinkmod.msg", {
    callback: (_err, m) => {
      received.push(JSON.parse(new TextDecoder().decode(m.data)));
      const h = natsHeaders();
      h.set(H_EMPTY, "1");
      m.respond(new Uint8Array(), { headers: h });
    },
  });
  const hop = async (n: number) => {
    const h = natsHeaders();
    h.set(H_TO, `${NODE}:request`);
    h.set(H_FROM, "signal"); // a signal carries its payload as is (no edge mapping on the target)
    await nc.request(`tinymodule.${MODULE}.msg`, new TextEncoder().encode(JSON.stringify({ context: { n }, inputData: { n } })), {
      headers: h,
      timeout: 20_000,
    });
  };

  try {
    await kube.create(tinyComponents, definition("export default (i) => ({ n: i.n * 2 })"), { namespace: ns });
    let tc: WatchedComponent | undefined;
    await waitUntil(
      "the TinyComponent is installed",
      async () => {
        tc = await kube.get(tinyComponents, "double-it", ns);
        return tc.status?.installed === true;
      },
      60_000,
    );
    expect(tc!.status).toEqual({ installed: true, reason: "", observedGeneration: 1, module: MODULE });
    expect(tc!.metadata.finalizers).toContain("io.tinysystems/component-finalizer");

    await waitUntil(
      "the TinyModule status lists double_it",
      async () => {
        const m = await kube.get(tinyModules, MODULE, ns).catch(() => undefined);
        return (m?.status?.components ?? []).some((c) => c.name === "double_it" && (c.tags ?? []).includes("Defined"));
      },
      60_000,
    );

    await kube.create(
      tinyNodes,
      {
        apiVersion: "operator.tinysystems.io/v1alpha1",
        kind: "TinyNode",
        metadata: { name: NODE },
        spec: { module: MODULE, component: "double_it", edges: [{ id: "e1", port: "response", to: `${SINK}:in`, flowID: "f1" }] },
      } as TinyNode,
      { namespace: ns },
    );
    await waitUntil(
      "the node runs",
      async () => {
        const n = await kube.get(tinyNodes, NODE, ns);
        return n.status?.status === "OK" && (n.status.ports ?? []).some((p) => p.name === "request");
      },
      60_000,
    );

    await hop(21);
    expect(received.at(-1)).toEqual({ context: { n: 21 }, outputData: { n: 42 } });

    // Edit the script: the running node serves the new version.
    const current = await kube.get(tinyComponents, "double-it", ns);
    await kube.mergePatch(tinyComponents, "double-it", { spec: { script: "export default (i) => ({ n: i.n * 3 })" } }, { namespace: ns });
    await waitUntil(
      "generation 2 is installed",
      async () => (await kube.get(tinyComponents, "double-it", ns)).status?.observedGeneration === (current.metadata.generation ?? 1) + 1,
      60_000,
    );
    await waitUntil(
      "the running node answers with the edited script",
      async () => {
        await hop(5);
        return JSON.stringify(received.at(-1)) === JSON.stringify({ context: { n: 5 }, outputData: { n: 15 } });
      },
      30_000,
    );

    // A broken edit is reported on the resource.
    await kube.mergePatch(tinyComponents, "double-it", { spec: { script: "export default (i) => {{{" } }, { namespace: ns });
    await waitUntil(
      "the broken edit is reported",
      async () => {
        const s = (await kube.get(tinyComponents, "double-it", ns)).status;
        return s?.installed === false && (s.reason ?? "").startsWith("script: main.js:1:");
      },
      60_000,
    );

    // Delete: uninstalled, finalizer released, the node reports the missing component.
    await kube.delete(tinyComponents, "double-it", { namespace: ns });
    await waitUntil(
      "the TinyComponent is gone",
      async () =>
        !(await kube.get(tinyComponents, "double-it", ns).then(
          () => true,
          () => false,
        )),
      60_000,
    );
    await waitUntil(
      "the node reports the missing component",
      async () => {
        const n = await kube.get(tinyNodes, NODE, ns);
        return n.status?.error === true && (n.status.status ?? "").includes("double_it");
      },
      60_000,
    );
    await waitUntil(
      "the TinyModule status no longer lists double_it",
      async () => {
        const m = await kube.get(tinyModules, MODULE, ns);
        return !(m.status?.components ?? []).some((c) => c.name === "double_it");
      },
      60_000,
    );
  } finally {
    sub.unsubscribe();
    await nc.close();
  }
}, 300_000);

test("a TinyComponent whose top-level code loops does not hold back the others' status; it fails at the 5 s load limit", async () => {
  const natsUrl = process.env.TINYHOST_TEST_NATS_URL;
  if (!natsUrl) throw new Error("TINYHOST_TEST_NATS_URL is not set: run through test/support/run-integration.ts");
  const ns = await cp.newNamespace("tinycomponent-loop");
  const dir = mkdtempSync(join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "tinycomponent-loop-"));
  const emptyComponents = mkdtempSync(join(dir, "components-"));
  proc2 = await startModuleProcess({
    hostname: "pod-0",
    name: MODULE,
    namespace: ns,
    kubeconfig: cp.tokenKubeconfig,
    components: emptyComponents,
    env: { TINY_NATS_URL: natsUrl },
    logDir: dir,
  });
  const make = (name: string, component: string, script: string, input?: string): WatchedComponent => {
    const d = definition(script);
    return { ...d, metadata: { name }, spec: { ...d.spec, component, ...(input === undefined ? {} : { input }) } } as WatchedComponent;
  };
  // The loop first, so that one worker would be busy with it when the others arrive.
  await kube.create(tinyComponents, make("loops", "loops", "while (true) {}\nexport default () => 1"), { namespace: ns });
  await Bun.sleep(300);
  await Promise.all([
    kube.create(tinyComponents, make("syntax", "syntax", "export default (i) => {{{"), { namespace: ns }),
    kube.create(tinyComponents, make("bad-name", "Bad-Name", "export default (i) => i"), { namespace: ns }),
    kube.create(tinyComponents, make("bad-input", "bad_input", "export default (i) => i", '{"type":'), { namespace: ns }),
  ]);
  const statusOf = async (name: string) => (await kube.get(tinyComponents, name, ns)).status;
  await waitUntil(
    "the three broken TinyComponents report why",
    async () => {
      const all = await Promise.all(["syntax", "bad-name", "bad-input"].map(statusOf));
      return all.every((st) => st?.installed === false && (st.reason ?? "") !== "");
    },
    60_000,
  );
  // Reported while the loop still spins: the loop's load limit (5 s) has not passed yet.
  expect((await statusOf("loops"))?.observedGeneration).toBeUndefined();
  expect((await statusOf("syntax"))?.reason).toStartWith("script: main.js:1:");
  expect((await statusOf("bad-input"))?.reason).toStartWith("input schema:");
  expect((await statusOf("bad-name"))?.reason).toContain("Bad-Name");
  await waitUntil("the looping TinyComponent reports its load limit", async () => (await statusOf("loops"))?.installed === false, 60_000);
  expect((await statusOf("loops"))?.reason).toBe("script: the script's top-level code ran past 5000 ms while loading");
}, 180_000);
