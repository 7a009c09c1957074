/**
 * The runtime scale-to-zero warning (src/operator/scale-to-zero.ts): with `TINYHOST_AUTOSCALE_MIN=0`
 * a node of a component declaring `requirements.scaling.keepRunning` (a flow applied after
 * provisioning) is logged once and its status, as the TinyNode reconciler writes it, is an error
 * naming the node, the component, why and the fix (min=1); other nodes and other floors are untouched.
 */
import { describe, expect, test } from "bun:test";
import type { TinyNode, TinyNodeStatus } from "../../../src/core/api/index.ts";
import { tinyNodeReconciler, type NodeScheduler } from "../../../src/k8s/controllers/index.ts";
import type { NodeStatusMergePatch, TinyNodeApi } from "../../../src/k8s/resources/node-api.ts";
import type { ReconcileContext } from "../../../src/k8s/runtime/controller.ts";
import { autoscaleMinFromEnv, ENV_AUTOSCALE_MIN, scaleToZeroGuard } from "../../../src/operator/scale-to-zero.ts";
import { resolveOptions, managerEnv } from "../../../src/provision/index.ts";
import { loadStaticRegistry } from "../../../src/loader/static.ts";

const MODULE = { name: "shop", version: "1.0.0", sdkVersion: "0.1.0" };
const TICKER = "f1.shop.ticker-a1";
const TRANSFORM = "f1.shop.transform-b2";
const WHY: Record<string, string> = { ticker: "it emits on a timer while started" };

function node(name: string, component: string): TinyNode {
  return { metadata: { name, namespace: "ns", resourceVersion: "1", finalizers: ["io.tinysystems/node-finalizer"] }, spec: { module: "shop", component } };
}

const OK: TinyNodeStatus = { status: "OK", error: false, ports: [], component: { description: "d", info: "i", tags: [] } };

function fakeScheduler(): NodeScheduler & { destroyed: string[] } {
  const destroyed: string[] = [];
  return { destroyed, update: async () => structuredClone(OK), destroy: async (n) => void destroyed.push(n) };
}

/** The reconciler as the module wires it, over a guarded fake scheduler; returns the status patches it wrote and the warnings. */
function wired(min: number | undefined) {
  const stored = new Map<string, TinyNode>([
    [TICKER, node(TICKER, "ticker")],
    [TRANSFORM, node(TRANSFORM, "transform")],
  ]);
  const patches = new Map<string, NodeStatusMergePatch>();
  const api: Pick<TinyNodeApi, "get" | "setFinalizers" | "patchStatus"> = {
    get: async (name) => structuredClone(stored.get(name)!),
    setFinalizers: async (name) => structuredClone(stored.get(name)!),
    patchStatus: async (name, _rv, status) => {
      patches.set(name, status);
      return structuredClone(stored.get(name)!);
    },
  };
  const warnings: { obj: object; msg: string }[] = [];
  const scheduler = scaleToZeroGuard(fakeScheduler(), { min, keepRunning: (c) => WHY[c], log: { warn: (obj, msg) => warnings.push({ obj, msg }) } });
  const r = tinyNodeReconciler({ module: MODULE, scheduler, api, isLeader: () => true });
  const reconcile = async (name: string) => r.reconcile(`ns/${name}`, stored.get(name), {} as ReconcileContext<TinyNode>);
  return { patches, warnings, reconcile };
}

describe("a keep-running node on a module autoscaled to zero", () => {
  test("min 0: the ticker's status is an error naming node, component, why and min=1; one warning however often it reconciles", async () => {
    const w = wired(0);
    await w.reconcile(TICKER);
    await w.reconcile(TICKER);
    await w.reconcile(TRANSFORM);
    const status = w.patches.get(TICKER)!;
    expect(status.error).toBe(true);
    expect(status.status).toContain(`node ${TICKER}: component ticker keeps its module running (it emits on a timer while started)`);
    expect(status.status).toContain(`autoscaled with min 0 (${ENV_AUTOSCALE_MIN}=0)`);
    expect(status.status).toContain("Set min=1");
    expect(w.warnings).toHaveLength(1);
    expect(w.warnings[0]!.msg).toBe(status.status as string);
    expect(w.warnings[0]!.obj).toMatchObject({ node: TICKER, component: "ticker" });
    // A node that does not keep its module running is reported as the scheduler says.
    expect(w.patches.get(TRANSFORM)!.status).toBe("OK");
    expect(w.patches.get(TRANSFORM)!.error).toBeNull(); // Go's error,omitempty: false is sent as null
  });

  test("min 1 or not autoscaled: nothing changes", async () => {
    for (const min of [1, undefined]) {
      const w = wired(min);
      await w.reconcile(TICKER);
      expect(w.patches.get(TICKER)!.status).toBe("OK");
      expect(w.warnings).toEqual([]);
    }
  });

  test("the env: a decimal integer ≥ 0, unset = not autoscaled; a bad value is refused naming it", () => {
    expect(autoscaleMinFromEnv({})).toBeUndefined();
    expect(autoscaleMinFromEnv({ [ENV_AUTOSCALE_MIN]: "0" })).toBe(0);
    expect(autoscaleMinFromEnv({ [ENV_AUTOSCALE_MIN]: "2" })).toBe(2);
    expect(() => autoscaleMinFromEnv({ [ENV_AUTOSCALE_MIN]: "-1" })).toThrow(`${ENV_AUTOSCALE_MIN} = "-1" must be a decimal integer ≥ 0`);
  });

  test("the bundled http_server, ticker and cron are the components it reports", () => {
    const keep = loadStaticRegistry()
      .list()
      .filter((d) => d.requirements?.scaling?.keepRunning !== undefined)
      .map((d) => d.info.name)
      .sort();
    expect(keep).toEqual(["cron", "http_server", "ticker"]);
  });

  test("provision --autoscale writes the floor into the module's env; without --autoscale it is absent", () => {
    const base = { namespace: "prod", name: "shop", image: "ghcr.io/acme/shop:1.2.0" };
    const env = (input: object) => managerEnv(resolveOptions({ ...base, ...input }), { nats: true });
    expect(env({ autoscale: "min=0,max=3" })).toContainEqual({ name: ENV_AUTOSCALE_MIN, value: "0" });
    expect(env({ autoscale: "min=2,max=3" })).toContainEqual({ name: ENV_AUTOSCALE_MIN, value: "2" });
    expect(env({}).some((e) => e.name === ENV_AUTOSCALE_MIN)).toBe(false);
  });
});
