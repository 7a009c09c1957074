/**
 * A flow applied after provisioning on a module autoscaled to zero (src/operator/scale-to-zero.ts,
 * docs/operations.md §15): a real `tinyhost run` with `TINYHOST_AUTOSCALE_MIN=0` — the env
 * `provision --autoscale min=0` sets — and the tick-count flow (a ticker, which keeps its module
 * running) applied to the real apiserver. The leader writes the ticker node's status as an error
 * naming the node, the component and the fix (min=1), and the log carries the warning; the
 * counter node, which does not keep its module running, is OK.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KubeClient } from "../../src/k8s/client/index.ts";
import { tinyNodes } from "../../src/k8s/controllers/index.ts";
import { connectControlPlane, type ControlPlane } from "../support/control-plane.ts";
import { applyObjects, exampleObjects, nodesByComponent } from "../support/flows.ts";
import { startModuleProcess, type ModuleProcess } from "../support/module-process.ts";
import { waitUntil } from "../support/process.ts";

let cp: ControlPlane;
let kube: KubeClient;
let proc: ModuleProcess | undefined;

beforeAll(async () => void ({ cp, kube } = await connectControlPlane()), 900_000);

afterAll(async () => {
  await proc?.stop(9000);
});

test("TINYHOST_AUTOSCALE_MIN=0: the ticker node's status is an error naming it and min=1, with a warning in the log; the counter is OK", async () => {
  const ns = await cp.newNamespace("scale-zero-warn");
  const dir = mkdtempSync(join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "scale-zero-warn-"));
  proc = await startModuleProcess({
    hostname: "pod-0",
    name: "tinyhost",
    namespace: ns,
    kubeconfig: cp.tokenKubeconfig,
    components: "components",
    env: { TINYHOST_AUTOSCALE_MIN: "0" },
    logDir: dir,
  });
  const objects = exampleObjects("tick-count", ns);
  await applyObjects(kube, ns, objects);
  const names = nodesByComponent(objects);
  const ticker = names.ticker!;
  const other = Object.entries(names).find(([c]) => c !== "ticker")![1];
  let status: { error?: boolean; status?: string } = {};
  await waitUntil(
    "the ticker's status written",
    async () => {
      status = (await kube.get(tinyNodes, ticker, ns)).status ?? {};
      return status.error === true;
    },
    30_000,
  );
  expect(status.status).toContain(`node ${ticker}: component ticker keeps its module running`);
  expect(status.status).toContain("autoscaled with min 0 (TINYHOST_AUTOSCALE_MIN=0)");
  expect(status.status).toContain("Set min=1");
  await waitUntil("the other node's status written", async () => (await kube.get(tinyNodes, other, ns)).status?.status !== undefined, 30_000);
  expect((await kube.get(tinyNodes, other, ns)).status?.error ?? false).toBe(false);
  const log = readFileSync(proc.logFile, "utf8");
  expect(log.split("\n").filter((l) => l.includes("keeps its module running") && l.includes(ticker)).length).toBeGreaterThanOrEqual(1);
});
