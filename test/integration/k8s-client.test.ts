/**
 * The REST client against the real kube-apiserver of the test bed, with both test users:
 * the token user and the client-certificate user, each loaded from its kubeconfig file.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { getControlPlane, type ControlPlane } from "../support/control-plane.ts";
import { KubeApiError, configMaps, createKubeClient, isConflict, isNotFound, type ConfigMap, type KubeClient } from "../../src/k8s/client/index.ts";

let cp: ControlPlane;
let byToken: KubeClient;
let byCert: KubeClient;

beforeAll(async () => {
  cp = await getControlPlane();
  byToken = await createKubeClient({ kubeconfig: cp.tokenKubeconfig, env: {} });
  byCert = await createKubeClient({ kubeconfig: cp.certKubeconfig, env: {} });
}, 900_000); // the first run may build kube-apiserver and etcd

const configMap = (name: string, data: Record<string, string> = { k: "v" }): ConfigMap => ({ metadata: { name }, data });

describe.each([
  ["token", () => byToken],
  ["client-certificate", () => byCert],
] as const)("as the %s user", (_user, client) => {
  test("the apiserver sees the user as admin", async () => {
    const review = await client().request<{ status: { userInfo: { username: string } } }>({
      method: "POST",
      path: "/apis/authentication.k8s.io/v1/selfsubjectreviews",
      body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
    });
    expect(review.status.userInfo.username).toBe("admin");
  });

  test("a ConfigMap created after a list arrives as ADDED in a watch started from the list's resourceVersion", async () => {
    const ns = await cp.newNamespace("kc-watch");
    const kube = client();
    const before = await kube.list(configMaps, { namespace: ns });
    expect(before.items.filter((c) => c.metadata.name === "watched")).toHaveLength(0);
    await kube.create(configMaps, configMap("watched"), { namespace: ns });

    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), 15_000);
    const seen: string[] = [];
    for await (const ev of kube.watch(configMaps, { namespace: ns, resourceVersion: before.metadata.resourceVersion, signal: ac.signal })) {
      if (ev.type === "ERROR") throw new Error(`watch ERROR: ${ev.object.message}`);
      if (ev.type === "BOOKMARK") continue;
      seen.push(`${ev.type} ${ev.object.metadata.name} ${ev.object.data?.k}`);
      if (ev.object.metadata.name === "watched") ac.abort();
    }
    clearTimeout(timer);
    expect(seen).toEqual(["ADDED watched v"]);
  });
});

describe("API semantics", () => {
  test("an update carrying a stale resourceVersion fails with a typed Conflict", async () => {
    const ns = await cp.newNamespace("kc-conflict");
    const created = await byToken.create(configMaps, configMap("c"), { namespace: ns });
    await byToken.update(configMaps, { ...created, data: { k: "first" } });
    const err = await byToken.update(configMaps, { ...created, data: { k: "second" } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeApiError);
    expect(isConflict(err)).toBe(true);
    expect((err as KubeApiError).status).toBe(409);
  });

  test("getting a missing object fails with a typed NotFound", async () => {
    const ns = await cp.newNamespace("kc-missing");
    const err = await byToken.get(configMaps, "does-not-exist", ns).catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
    expect((err as KubeApiError).details?.name).toBe("does-not-exist");
    expect((err as Error).message).toContain(`GET /api/v1/namespaces/${ns}/configmaps/does-not-exist`);
  });

  test("server-side apply twice with the same field manager leaves the resourceVersion unchanged", async () => {
    const ns = await cp.newNamespace("kc-apply");
    const cfg = { metadata: { name: "applied", namespace: ns, labels: { app: "x" } }, data: { a: "1" } };
    const first = await byToken.apply(configMaps, cfg, { fieldManager: "tinyhost-test" });
    const second = await byToken.apply(configMaps, cfg, { fieldManager: "tinyhost-test" });
    expect(first.data).toEqual({ a: "1" });
    expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    expect(second.metadata.managedFields?.map((f) => f.manager)).toEqual(["tinyhost-test"]);
  });

  test("merge and JSON patches change the object on the server", async () => {
    const ns = await cp.newNamespace("kc-patch");
    await byToken.create(configMaps, configMap("p", { a: "1", b: "2" }), { namespace: ns });
    await byToken.mergePatch(configMaps, "p", { data: { a: null, c: "3" } }, { namespace: ns });
    const patched = await byToken.jsonPatch(configMaps, "p", [{ op: "replace", path: "/data/b", value: "20" }], { namespace: ns });
    expect(patched.data).toEqual({ b: "20", c: "3" });
  });

  test("list with limit returns pages joined by continue tokens, and listAll gathers them all", async () => {
    const ns = await cp.newNamespace("kc-pages");
    for (const n of ["p1", "p2", "p3", "p4", "p5"]) await byCert.create(configMaps, configMap(n), { namespace: ns });
    const names: string[] = [];
    let page = await byCert.list(configMaps, { namespace: ns, limit: 2 });
    let pages = 1;
    names.push(...page.items.map((c) => c.metadata.name ?? ""));
    while (page.metadata.continue) {
      page = await byCert.list(configMaps, { namespace: ns, limit: 2, continue: page.metadata.continue });
      names.push(...page.items.map((c) => c.metadata.name ?? ""));
      pages++;
    }
    // A fresh namespace may also hold kube-root-ca.crt only when a controller manager runs; ignore it either way.
    expect(names.filter((n) => n.startsWith("p"))).toEqual(["p1", "p2", "p3", "p4", "p5"]);
    expect(pages).toBeGreaterThanOrEqual(3);
    const all = await byCert.listAll(configMaps, { namespace: ns, limit: 2 });
    expect(all.items.map((c) => c.metadata.name)).toEqual(names);
  });

  test("delete with a stale precondition is refused, then deletes with the right one", async () => {
    const ns = await cp.newNamespace("kc-delete");
    const created = await byToken.create(configMaps, configMap("d"), { namespace: ns });
    const err = await byToken
      .delete(configMaps, "d", { namespace: ns, preconditions: { uid: "00000000-0000-0000-0000-000000000000" } })
      .catch((e: unknown) => e);
    expect(isConflict(err)).toBe(true);
    await byToken.delete(configMaps, "d", { namespace: ns, preconditions: { uid: created.metadata.uid ?? "" } });
    expect(isNotFound(await byToken.get(configMaps, "d", ns).catch((e: unknown) => e))).toBe(true);
  });
});
