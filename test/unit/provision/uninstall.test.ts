/**
 * `tinyhost uninstall`'s order against the module's pods: the RBAC and ServiceAccount the pods use
 * to release their leader-election Lease on SIGTERM go only after those pods are gone (seen on the
 * real node: deleted at once, the release was refused and the Lease kept naming the dead pod).
 */
import { describe, expect, test } from "bun:test";
import type { KubeClient } from "../../../src/k8s/client/index.ts";
import { resolveOptions, uninstall } from "../../../src/provision/index.ts";

interface Call {
  op: string;
  what: string;
}

/** A cluster where every object exists and is tinyhost's, and the module's pods take `podPolls` lists to go. */
function fakeKube(podPolls: number): { kube: KubeClient; calls: Call[] } {
  const calls: Call[] = [];
  let left = podPolls;
  const kube = {
    async get(res: { plural: string }, name: string) {
      return { metadata: { name, resourceVersion: "1", labels: { "app.kubernetes.io/managed-by": "tinyhost" } }, kind: res.plural };
    },
    async delete(res: { plural: string }, name: string) {
      calls.push({ op: "delete", what: `${res.plural}/${name}` });
    },
    async list(res: { plural: string }, options: { labelSelector?: string }) {
      calls.push({ op: "list", what: `${res.plural}?${options.labelSelector}` });
      const items = left > 0 ? [{ metadata: { name: "shop-controller-manager-abc" } }] : [];
      left--;
      return { items, metadata: {} };
    },
  } as unknown as KubeClient;
  return { kube, calls };
}

const OPTIONS = resolveOptions({ namespace: "prod", name: "shop", image: "tinyhost:0.1.0" });
const POD_SELECTOR = "pods?control-plane=controller-manager,app.kubernetes.io/name=tinysystems-operator,app.kubernetes.io/instance=shop";

describe("uninstall waits for the module's pods before their RBAC goes", () => {
  test("lists the Deployment's pods until none is left, between the Deployment and the first Role", async () => {
    const { kube, calls } = fakeKube(3);
    await uninstall(kube, OPTIONS, { podsGonePollMs: 1 });
    const order = calls.map((c) => `${c.op} ${c.what}`);
    const deployment = order.indexOf("delete deployments/shop-controller-manager");
    const firstRbac = order.findIndex((c) => /^delete (roles|rolebindings)\//.test(c));
    const account = order.indexOf("delete serviceaccounts/shop-controller-manager");
    expect(deployment).toBeGreaterThan(0);
    const lists = order.filter((c) => c === `list ${POD_SELECTOR}`);
    expect(order.indexOf(`list ${POD_SELECTOR}`)).toBeGreaterThan(deployment);
    expect(lists).toHaveLength(4); // three with the pod, the fourth empty
    expect(order.lastIndexOf(`list ${POD_SELECTOR}`)).toBeLessThan(firstRbac);
    expect(order.lastIndexOf(`list ${POD_SELECTOR}`)).toBeLessThan(account);
  });

  test("goes on after the timeout when a pod does not go (a stuck pod must not stop uninstall)", async () => {
    const { kube, calls } = fakeKube(Number.POSITIVE_INFINITY);
    const t0 = performance.now();
    const out = await uninstall(kube, OPTIONS, { podsGoneTimeoutMs: 50, podsGonePollMs: 5 });
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(out.map((o) => `${o.kind}/${o.name}`)).toContain("ServiceAccount/shop-controller-manager");
    expect(calls.filter((c) => c.op === "list").length).toBeGreaterThan(1);
  });

  test("no pod to wait for: one list", async () => {
    const { kube, calls } = fakeKube(0);
    await uninstall(kube, OPTIONS);
    expect(calls.filter((c) => c.op === "list").map((c) => c.what)).toEqual([POD_SELECTOR]);
  });
});
