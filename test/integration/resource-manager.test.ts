/**
 * The resource manager against the real kube-apiserver: the release's pod, Service and Ingress are
 * created as the tinysystems-operator chart creates them (runtime-spec §12, provision.md §5.1),
 * then exposePort/disclosePort, the custom-resource helpers and patchNode run on them.
 * No scheduler, controller manager or garbage collector runs: pods just exist, and ownership is
 * checked through owner references.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { connectControlPlane, type ControlPlane } from "../support/control-plane.ts";
import { KubeClient, createKubeClient, ingresses, services, type KubeObject, type ResourceDescriptor, type WriteOptions } from "../../src/k8s/client/index.ts";
import {
  API_VERSION,
  FLOW_NAME_LABEL,
  INGRESS_HOSTNAME_SUFFIX_ANNOTATION,
  PROJECT_NAME_LABEL,
  generateNodeName,
  type NewTinyNode,
  type TinyNode,
} from "../../src/core/api/index.ts";
import {
  INGRESS,
  POD,
  SERVICE,
  SUFFIX,
  chartService,
  managerFor,
  pathTo,
  rejection,
  releaseIn,
  versionsOf,
  type ReleaseOptions,
} from "./resource-manager-release.ts";
import {
  InvalidHostnameError,
  InvalidPortError,
  NoHostnamesError,
  OwnerLookupError,
  PodNameUnknownError,
  ReleaseNotFoundError,
  ReleaseObjectLookupError,
  createResourceManager,
  type ClusterModuleClient,
} from "../../src/k8s/resources/index.ts";

let cp: ControlPlane;
let kube: KubeClient;

beforeAll(async () => void ({ cp, kube } = await connectControlPlane()), 900_000);

const release = (prefix: string, opts: ReleaseOptions = {}) => releaseIn(cp, kube, prefix, opts);
const manager = (ns: string, client: KubeClient = kube, podName: string | null = POD): ClusterModuleClient => managerFor(client, ns, podName);
const getService = (ns: string) => kube.get(services, SERVICE, ns);
const getIngress = (ns: string) => kube.get(ingresses, INGRESS, ns);
const versions = (ns: string) => versionsOf(kube, ns);
const servicePorts = async (ns: string) => (await getService(ns)).spec?.ports?.map((p) => `${p.name}:${p.port}->${p.targetPort}`);
const backendOf = (port: number) => ({ service: { name: SERVICE, port: { number: port } } });
const rootPath = (port: number) => pathTo("/", port);

describe("exposePort", () => {
  test("one hostname adds Service port port<N>, an Ingress rule / → service:N and its TLS entry", async () => {
    const ns = await release("rm-one");
    const hosts = await manager(ns).exposePort({ hostnames: ["shop.example.com"], port: 8080 });
    expect(hosts).toEqual(["shop.example.com"]);
    expect(await servicePorts(ns)).toEqual(["grpc:8483->grpc", "port8080:8080->8080"]);
    const ing = await getIngress(ns);
    expect(ing.spec?.rules).toEqual([{ host: "shop.example.com", http: { paths: [rootPath(8080)] } }]);
    expect(ing.spec?.tls).toEqual([{ hosts: ["shop.example.com"], secretName: "shop.example.com-tls" }]);
    expect(ing.spec?.ingressClassName).toBe("nginx");
  });

  test("three hostnames are normalized (lowercase, no trailing dot) and each gets a rule and a TLS entry", async () => {
    const ns = await release("rm-three");
    const hosts = await manager(ns).exposePort({ hostnames: ["A.example.com", "b.example.com.", "*.apps.example.com"], port: 9000 });
    expect(hosts).toEqual(["a.example.com", "b.example.com", "*.apps.example.com"]);
    const ing = await getIngress(ns);
    expect(ing.spec?.rules?.map((r) => r.host)).toEqual(hosts);
    expect(ing.spec?.tls).toEqual([
      { hosts: ["a.example.com"], secretName: "a.example.com-tls" },
      { hosts: ["b.example.com"], secretName: "b.example.com-tls" },
      { hosts: ["*.apps.example.com"], secretName: "wildcard.apps.example.com-tls" },
    ]);
  });

  test("an auto hostname becomes <autoHostName>-<ingress suffix annotation>", async () => {
    const ns = await release("rm-auto");
    const hosts = await manager(ns).exposePort({ autoHostName: "checkout", port: 8080 });
    expect(hosts).toEqual([`checkout-${SUFFIX}`]);
    expect((await getIngress(ns)).spec?.rules?.map((r) => r.host)).toEqual([`checkout-${SUFFIX}`]);
  });

  test("an auto hostname alone without the suffix annotation is an error and changes nothing", async () => {
    const ns = await release("rm-nosuffix", { suffix: null });
    const before = await versions(ns);
    const err = await rejection(manager(ns).exposePort({ autoHostName: "checkout", port: 8080 }));
    expect(err).toBeInstanceOf(NoHostnamesError);
    expect(err.message).toContain(INGRESS_HOSTNAME_SUFFIX_ANNOTATION);
    expect(await versions(ns)).toEqual(before);
  });

  test("no hostnames and no auto hostname is an error before any request", async () => {
    const ns = await release("rm-nohosts");
    const client = await createKubeClient({ kubeconfig: cp.tokenKubeconfig, env: {} });
    const err = await rejection(manager(ns, client).exposePort({ port: 8080 }));
    expect(err).toBeInstanceOf(NoHostnamesError);
    expect(Object.values(client.stats).reduce((a, b) => a + b, 0)).toBe(0);
  });

  test("exposing the same port and hosts twice writes nothing the second time", async () => {
    const ns = await release("rm-twice");
    const client = await createKubeClient({ kubeconfig: cp.tokenKubeconfig, env: {} });
    const m = manager(ns, client);
    await m.exposePort({ hostnames: ["shop.example.com"], autoHostName: "shop", port: 8080 });
    const before = await versions(ns);
    const updates = client.stats.update;
    const hosts = await m.exposePort({ hostnames: ["SHOP.example.com."], autoHostName: "shop", port: 8080 });
    expect(hosts).toEqual(["shop.example.com", `shop-${SUFFIX}`]);
    expect(client.stats.update).toBe(updates);
    expect(await versions(ns)).toEqual(before);
  });

  test("concurrent exposePort calls for different ports in one process all end up present", async () => {
    const ns = await release("rm-concurrent");
    const m = manager(ns);
    await Promise.all([8080, 8081, 8082, 8083].map((port) => m.exposePort({ hostnames: [`p${port}.example.com`], port })));
    expect((await servicePorts(ns))?.sort()).toEqual([
      "grpc:8483->grpc",
      "port8080:8080->8080",
      "port8081:8081->8081",
      "port8082:8082->8082",
      "port8083:8083->8083",
    ]);
    const rules = (await getIngress(ns)).spec?.rules ?? [];
    expect(rules.map((r) => r.host).sort()).toEqual(["p8080.example.com", "p8081.example.com", "p8082.example.com", "p8083.example.com"]);
  });

  test("exposePort calls from four manager instances (own clients, own locks) all end up present", async () => {
    const ns = await release("rm-processes");
    const managers = await Promise.all([0, 1, 2, 3].map(async () => manager(ns, await createKubeClient({ kubeconfig: cp.tokenKubeconfig, env: {} }))));
    await Promise.all(managers.map((m, i) => m.exposePort({ hostnames: [`m${i}.example.com`], port: 7000 + i })));
    expect((await getService(ns)).spec?.ports?.map((p) => p.port).sort()).toEqual([7000, 7001, 7002, 7003, 8483]);
    const ing = await getIngress(ns);
    expect(ing.spec?.rules?.map((r) => r.host).sort()).toEqual(["m0.example.com", "m1.example.com", "m2.example.com", "m3.example.com"]);
    expect(ing.spec?.tls?.map((t) => t.secretName).sort()).toEqual(["m0.example.com-tls", "m1.example.com-tls", "m2.example.com-tls", "m3.example.com-tls"]);
  });

  test("a write that loses to another writer (409) is recomputed on the newest objects and keeps the other writer's entries", async () => {
    const ns = await release("rm-conflict");
    const other = await createKubeClient({ kubeconfig: cp.tokenKubeconfig, env: {} });
    const base = await createKubeClient({ kubeconfig: cp.tokenKubeconfig, env: {} });
    /** A real client whose first Service and Ingress updates are preceded by another writer's change. */
    class RacedClient extends KubeClient {
      raced = new Set<string>();
      conflicts = 0;
      override async update<T extends KubeObject>(res: ResourceDescriptor<T>, object: T, options: WriteOptions = {}): Promise<T> {
        if (!this.raced.has(res.kind)) {
          this.raced.add(res.kind);
          if (res.kind === "Service") {
            const s = await other.get(services, SERVICE, ns);
            await other.update(services, { ...s, spec: { ...s.spec, ports: [...(s.spec?.ports ?? []), { name: "metrics", port: 9090, targetPort: 9090 }] } });
          } else {
            const i = await other.get(ingresses, INGRESS, ns);
            await other.update(ingresses, { ...i, spec: { ...i.spec, rules: [{ host: "other.example.com", http: { paths: [rootPath(9090)] } }] } });
          }
        }
        try {
          return await super.update(res, object, options);
        } catch (e) {
          this.conflicts++;
          throw e;
        }
      }
    }
    const raced = new RacedClient(base.connection);
    await manager(ns, raced).exposePort({ hostnames: ["shop.example.com"], port: 8080 });
    expect(raced.conflicts).toBe(2);
    expect(await servicePorts(ns)).toEqual(["grpc:8483->grpc", "metrics:9090->9090", "port8080:8080->8080"]);
    expect((await getIngress(ns)).spec?.rules?.map((r) => r.host)).toEqual(["other.example.com", "shop.example.com"]);
  });

  test("invalid hostnames and ports are rejected naming the value, and nothing changes", async () => {
    const ns = await release("rm-invalid");
    const m = manager(ns);
    const before = await versions(ns);
    const cases: [Parameters<ClusterModuleClient["exposePort"]>[0], new (...a: never[]) => Error, string][] = [
      [{ hostnames: ["ok.example.com", "bad_host.example.com"], port: 8080 }, InvalidHostnameError, "bad_host.example.com"],
      [{ hostnames: ["a..example.com"], port: 8080 }, InvalidHostnameError, "a..example.com"],
      [{ hostnames: ["api.*.example.com"], port: 8080 }, InvalidHostnameError, "api.*.example.com"],
      [{ hostnames: ["*.*.example.com"], port: 8080 }, InvalidHostnameError, "*.*.example.com"],
      [{ hostnames: ["-shop.example.com"], port: 8080 }, InvalidHostnameError, "-shop.example.com"],
      [{ hostnames: [`${"a".repeat(64)}.example.com`], port: 8080 }, InvalidHostnameError, "a".repeat(64)],
      [{ hostnames: [`${"abcdefghi.".repeat(25)}com`], port: 8080 }, InvalidHostnameError, "253"],
      [{ hostnames: ["10.0.0.1"], port: 8080 }, InvalidHostnameError, "10.0.0.1"],
      [{ autoHostName: "bad name", port: 8080 }, InvalidHostnameError, `bad name-${SUFFIX}`],
      [{ hostnames: ["ok.example.com"], port: 0 }, InvalidPortError, "0"],
      [{ hostnames: ["ok.example.com"], port: 65536 }, InvalidPortError, "65536"],
      [{ hostnames: ["ok.example.com"], port: 80.5 }, InvalidPortError, "80.5"],
      [{ hostnames: ["ok.example.com"], port: "8080" as unknown as number }, InvalidPortError, '"8080"'],
    ];
    for (const [request, type, named] of cases) {
      const err = await rejection(m.exposePort(request));
      expect(err).toBeInstanceOf(type);
      expect(err.message).toContain(named);
    }
    expect(await versions(ns)).toEqual(before);
  });
});

describe("disclosePort", () => {
  test("disclosing one of two ports keeps the other's entries, and a path another writer added stays after both are disclosed", async () => {
    const ns = await release("rm-disclose");
    const m = manager(ns);
    await m.exposePort({ hostnames: ["a.example.com", "only8080.example.com"], port: 8080 });
    await m.exposePort({ hostnames: ["b.example.com"], port: 8081 });
    // Another writer adds /api → 8081 to a.example.com's rule, and an HTTP-less rule.
    const ing = await getIngress(ns);
    const rules = (ing.spec?.rules ?? []).map((r) =>
      r.host === "a.example.com"
        ? { ...r, http: { paths: [...((r.http as { paths: unknown[] }).paths ?? []), { path: "/api", pathType: "Prefix", backend: backendOf(8081) }] } }
        : r,
    );
    await kube.update(ingresses, { ...ing, spec: { ...ing.spec, rules: [...rules, { host: "static.example.com" }] } });

    await m.disclosePort(8080);
    expect(await servicePorts(ns)).toEqual(["grpc:8483->grpc", "port8081:8081->8081"]);
    const after = await getIngress(ns);
    expect(after.spec?.rules).toEqual([
      { host: "a.example.com", http: { paths: [{ path: "/api", pathType: "Prefix", backend: backendOf(8081) }] } },
      { host: "b.example.com", http: { paths: [rootPath(8081)] } },
      { host: "static.example.com" },
    ]);
    expect(after.spec?.tls?.map((t) => t.hosts)).toEqual([["a.example.com"], ["b.example.com"]]);

    await m.disclosePort(8081);
    expect(await servicePorts(ns)).toEqual(["grpc:8483->grpc"]);
    const last = await getIngress(ns);
    // /api → 8081 is the other writer's (not in tinyhost's record), so it stays, and a.example.com
    // keeps the TLS entry its remaining rule needs; tinyhost's own rule and TLS for b are gone.
    expect(last.spec?.rules).toEqual([
      { host: "a.example.com", http: { paths: [{ path: "/api", pathType: "Prefix", backend: backendOf(8081) }] } },
      { host: "static.example.com" },
    ]);
    expect(last.spec?.tls).toEqual([{ hosts: ["a.example.com"], secretName: "a.example.com-tls" }]);
    expect(last.metadata.annotations?.["tinyhost.io/exposed-hosts"]).toBeUndefined();
  });

  test("disclosing a port that is not exposed writes nothing", async () => {
    const ns = await release("rm-disclose-none");
    const m = manager(ns);
    await m.exposePort({ hostnames: ["a.example.com"], port: 8080 });
    const before = await versions(ns);
    await m.disclosePort(9999);
    expect(await versions(ns)).toEqual(before);
  });

  test("without HOSTNAME disclosePort fails with PodNameUnknownError (Go succeeds silently)", async () => {
    const ns = await release("rm-nohostname");
    const err = await rejection(manager(ns, kube, null).disclosePort(8080));
    expect(err).toBeInstanceOf(PodNameUnknownError);
    expect((err as PodNameUnknownError).code).toBe("POD_NAME_UNKNOWN");
  });
});

describe("release lookups", () => {
  test("a missing Service is an error naming the selector, and the Ingress is not touched", async () => {
    const ns = await release("rm-nosvc", { service: false });
    const before = (await getIngress(ns)).metadata.resourceVersion;
    const err = await rejection(manager(ns).exposePort({ hostnames: ["a.example.com"], port: 8080 }));
    expect(err).toBeInstanceOf(ReleaseObjectLookupError);
    expect((err as ReleaseObjectLookupError).code).toBe("SERVICE_NOT_FOUND");
    expect(err.message).toContain(
      "found no Service matching app.kubernetes.io/instance=shop,app.kubernetes.io/name=tinysystems-operator,app.kubernetes.io/component=manager",
    );
    expect((await getIngress(ns)).metadata.resourceVersion).toBe(before);
  });

  test("two matching Services are an ambiguity error listing both names", async () => {
    const ns = await release("rm-twosvc");
    await kube.create(services, chartService("shop-manager-service-copy"), { namespace: ns });
    const err = await rejection(manager(ns).exposePort({ hostnames: ["a.example.com"], port: 8080 }));
    expect((err as ReleaseObjectLookupError).code).toBe("SERVICE_AMBIGUOUS");
    expect(err.message).toContain(
      "found 2 Services matching app.kubernetes.io/instance=shop,app.kubernetes.io/name=tinysystems-operator,app.kubernetes.io/component=manager",
    );
    expect(err.message).toContain(": shop-manager-service, shop-manager-service-copy");
  });

  test("a missing Ingress is an error and the Service is not touched", async () => {
    const ns = await release("rm-noing", { ingress: false });
    const before = (await getService(ns)).metadata.resourceVersion;
    const err = await rejection(manager(ns).exposePort({ hostnames: ["a.example.com"], port: 8080 }));
    expect((err as ReleaseObjectLookupError).code).toBe("INGRESS_NOT_FOUND");
    expect(err.message).toContain("app.kubernetes.io/instance=shop,app.kubernetes.io/name=tinysystems-operator");
    expect((await getService(ns)).metadata.resourceVersion).toBe(before);
  });

  test("a pod that does not exist is a ReleaseNotFoundError naming the pod", async () => {
    const ns = await release("rm-nopod");
    const err = await rejection(manager(ns, kube, "not-this-pod").exposePort({ hostnames: ["a.example.com"], port: 8080 }));
    expect(err).toBeInstanceOf(ReleaseNotFoundError);
    expect(err.message).toContain(`${ns}/not-this-pod`);
  });
});

describe("custom-resource helpers", () => {
  test("flows, pages and scenarios are owned by their project; nodes by their flow (controller, blockOwnerDeletion)", async () => {
    const ns = await cp.newNamespace("rm-owners");
    const m = manager(ns);
    const project = await m.projects.create("My Shop");
    expect(project.metadata.name).toMatch(/^my-shop[a-z0-9]{5}$/);
    expect(project.metadata.annotations?.["tinysystems.io/project-name"]).toBe("My Shop");
    const projectName = project.metadata.name ?? "";
    const projectRef = {
      apiVersion: API_VERSION,
      kind: "TinyProject",
      name: projectName,
      uid: project.metadata.uid ?? "",
      controller: true,
      blockOwnerDeletion: true,
    };

    const flow = await m.flows.create(projectName, "Checkout Flow");
    expect(flow.metadata.ownerReferences).toEqual([projectRef]);
    expect(flow.metadata.labels?.[PROJECT_NAME_LABEL]).toBe(projectName);
    expect(flow.metadata.annotations?.["tinysystems.io/flow-description"]).toBe("Checkout Flow");
    const flowName = flow.metadata.name ?? "";

    const page = await m.pages.create("Overview", projectName, 2);
    expect(page.metadata.ownerReferences).toEqual([projectRef]);
    expect(page.metadata.annotations).toEqual({ "tinysystems.io/page-name": "Overview", "tinysystems.io/page-sort-idx": "2" });

    const scenario = await m.scenarios.create("Happy path", projectName);
    expect(scenario.metadata.ownerReferences).toEqual([projectRef]);
    expect(scenario.metadata.annotations?.["tinysystems.io/scenario-name"]).toBe("Happy path");

    const node = await m.nodes.create(nodeIn(projectName, flowName, { ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "stale", uid: "x" }] }));
    expect(node.metadata.ownerReferences).toEqual([
      { apiVersion: API_VERSION, kind: "TinyFlow", name: flowName, uid: flow.metadata.uid ?? "", controller: true, blockOwnerDeletion: true },
    ]);
  });

  test("creating a node whose flow does not exist fails with OwnerLookupError and creates nothing", async () => {
    const ns = await cp.newNamespace("rm-noflow");
    const m = manager(ns);
    const err = await rejection(m.nodes.create(nodeIn("p", "missing-flow")));
    expect(err).toBeInstanceOf(OwnerLookupError);
    expect(err.message).toContain(`TinyFlow ${ns}/missing-flow`);
    expect(await m.nodes.listByProject("p")).toEqual([]);
  });

  test("node listing selects by project and flow; deleteByFlow removes only that flow's nodes", async () => {
    const ns = await cp.newNamespace("rm-list");
    const m = manager(ns);
    const project = (await m.projects.create("p")).metadata.name ?? "";
    const f1 = (await m.flows.create(project, "one")).metadata.name ?? "";
    const f2 = (await m.flows.create(project, "two")).metadata.name ?? "";
    await m.nodes.create(nodeIn(project, f1));
    await m.nodes.create(nodeIn(project, f1));
    await m.nodes.create(nodeIn(project, f2));
    expect((await m.flows.list(project)).map((f) => f.metadata.name).sort()).toEqual([f1, f2].sort());
    expect(await m.nodes.listByProject(project)).toHaveLength(3);
    expect(await m.nodes.listByFlow(project, f1)).toHaveLength(2);
    await m.nodes.deleteByFlow(project, f1);
    expect((await m.nodes.listByProject(project)).map((n) => n.metadata.labels?.[FLOW_NAME_LABEL])).toEqual([f2]);
  });

  test("createModule creates TinyModule <sanitized name> with image name:version and ignores AlreadyExists", async () => {
    const ns = await cp.newNamespace("rm-module");
    const m = manager(ns);
    expect(await m.createModule({ name: "tinysystems/shop-module-v0", version: "0.1.3" })).toBe(true);
    expect(await m.createModule({ name: "tinysystems/shop-module-v0", version: "0.1.4" })).toBe(false);
    const mod = await kube.request<{ spec: { image: string } }>({
      method: "GET",
      path: `/apis/operator.tinysystems.io/v1alpha1/namespaces/${ns}/tinymodules/tinysystems-shop-module-v0`,
    });
    expect(mod.spec.image).toBe("tinysystems/shop-module-v0:0.1.3");
  });
});

describe("patchNode", () => {
  test("an updater that leaves the status unchanged sends no write", async () => {
    const ns = await cp.newNamespace("rm-patch-noop");
    const client = await createKubeClient({ kubeconfig: cp.tokenKubeconfig, env: {} });
    const m = manager(ns, client);
    const node = await m.nodes.create(nodeIn("p", ""));
    const name = node.metadata.name ?? "";
    await m.nodes.patch(name, (n) => void (n.status = baseStatus()));
    const patches = client.stats.patch;
    const result = await m.nodes.patch(name, (n) => {
      n.metadata.labels = { changed: "only-metadata" }; // not status: ignored, as in Go
      n.status = baseStatus();
    });
    expect(result.patched).toBe(false);
    expect(client.stats.patch).toBe(patches);
  });

  test("a status change is merge-patched; a conflicting write in between makes it re-read and run the updater again", async () => {
    const ns = await cp.newNamespace("rm-patch-conflict");
    const m = manager(ns);
    const other = manager(ns, await createKubeClient({ kubeconfig: cp.tokenKubeconfig, env: {} }));
    const name = (await m.nodes.create(nodeIn("p", ""))).metadata.name ?? "";
    await m.nodes.patch(name, (n) => void (n.status = { ...baseStatus(), metadata: { seed: "1" } }));

    let calls = 0;
    const result = await m.nodes.patch(name, async (n) => {
      calls++;
      if (calls === 1) await other.nodes.patch(name, (o) => void (o.status!.metadata = { ...o.status!.metadata, other: "2" }));
      n.status!.metadata = { ...n.status!.metadata, mine: "3" };
      delete n.status!.metadata.seed;
    });
    expect(calls).toBe(2);
    expect(result.patched).toBe(true);
    expect((await m.nodes.get(name)).status?.metadata).toEqual({ other: "2", mine: "3" });
  });
});

function baseStatus(): NonNullable<TinyNode["status"]> {
  return { module: { name: "tinysystems/shop-module-v0", version: "0.1.3" }, component: { description: "d", info: "i" }, status: "OK" };
}

function nodeIn(project: string, flow: string, meta: Partial<TinyNode["metadata"]> = {}): NewTinyNode {
  return {
    metadata: {
      generateName: generateNodeName(project, flow, "tinysystems/shop-module-v0", "http_server"),
      labels: { [PROJECT_NAME_LABEL]: project, ...(flow ? { [FLOW_NAME_LABEL]: flow } : {}) },
      ...meta,
    },
    spec: { module: "tinysystems/shop-module-v0", component: "http_server" },
  };
}
