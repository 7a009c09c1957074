/**
 * `tinyhost provision` against the real kube-apiserver: every object is created with the chart's
 * labels, a re-run changes nothing, a new image version changes only the Deployment, the NATS
 * token Secret is never replaced, and the Service port / Ingress rules ExposePort adds survive a
 * re-provision (server-side apply field ownership, provision.md §8).
 * No controller manager runs (test-control-plane.md §3.3): Deployments and StatefulSets create no
 * pods, so the tests check objects, never pods.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { getControlPlane, type ControlPlane } from "../support/control-plane.ts";
import {
  clusterRoleBindings,
  clusterRoles,
  configMaps,
  createKubeClient,
  customResourceDefinitions,
  deployments,
  ingresses,
  namespaces,
  pods,
  roleBindings,
  roles,
  secrets,
  serviceAccounts,
  services,
  statefulSets,
  type KubeClient,
  type KubeObject,
  type ResourceDescriptor,
} from "../../src/k8s/client/index.ts";
import { createResourceManager } from "../../src/k8s/resources/index.ts";
import { provisionCommand } from "../../src/cli/commands/provision.ts";
import {
  provision,
  resolveOptions,
  ReleaseImageMismatchError,
  type AppliedObject,
  type ProvisionInput,
} from "../../src/provision/index.ts";

let cp: ControlPlane;
let kube: KubeClient;

beforeAll(async () => {
  cp = await getControlPlane();
  kube = await createKubeClient({ kubeconfig: cp.tokenKubeconfig, env: {} });
}, 900_000);

const RELEASE = "shop";
const IMAGE = "example.com/acme/shop:1.0.0";

/** A namespace name no other test uses; provision creates it. */
function freshNamespace(prefix: string): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
}

/** Runs provision quietly with the test kubeconfig. */
function run(namespace: string, input: ProvisionInput = {}) {
  return provision(kube, resolveOptions({ namespace, name: RELEASE, image: IMAGE, ...input }), { crdTimeoutMs: 10_000 });
}

const KIND_RESOURCES: Record<string, ResourceDescriptor<KubeObject>> = {
  Namespace: namespaces,
  CustomResourceDefinition: customResourceDefinitions,
  Secret: secrets,
  ConfigMap: configMaps,
  Service: services,
  StatefulSet: statefulSets,
  ServiceAccount: serviceAccounts,
  Deployment: deployments,
  ClusterRole: clusterRoles,
  ClusterRoleBinding: clusterRoleBindings,
  Role: roles,
  RoleBinding: roleBindings,
  Ingress: ingresses,
};

/** resourceVersion of each reported object, read back from the apiserver, keyed `Kind ns/name`. */
async function liveVersions(objects: AppliedObject[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const o of objects) {
    const res = KIND_RESOURCES[o.kind];
    if (!res) throw new Error(`test has no descriptor for kind ${o.kind}`);
    const live = await kube.get(res, o.name, o.namespace);
    out[`${o.kind} ${o.namespace ?? ""}/${o.name}`] = live.metadata.resourceVersion ?? "";
  }
  return out;
}

const decode = (b64: string | undefined) => Buffer.from(b64 ?? "", "base64").toString("utf8");

function envOf(deployment: KubeObject & { spec?: Record<string, unknown> }): Record<string, string> {
  const containers = (deployment.spec as { template: { spec: { containers: { env?: { name: string; value?: string }[] }[] } } }).template.spec.containers;
  return Object.fromEntries((containers[0]!.env ?? []).map((e) => [e.name, e.value ?? ""]));
}

describe("tinyhost provision", () => {
  test("creates every object with the release labels, through the CLI flags", async () => {
    const ns = freshNamespace("prov-all");
    const code = await provisionCommand.run([
      "--namespace", ns, "--name", RELEASE, "--image", IMAGE, "--ingress-suffix", "apps.example.com", "--kubeconfig", cp.tokenKubeconfig,
    ]);
    expect(code).toBe(0);

    expect((await kube.get(namespaces, ns)).metadata.labels?.["tinysystems.io/managed"]).toBe("true");
    for (const plural of ["tinycomponents", "tinyflows", "tinymodules", "tinynodes", "tinyprojects", "tinyscenarios", "tinywidgetpages"]) {
      const crd = await kube.get(customResourceDefinitions, `${plural}.operator.tinysystems.io`);
      expect(crd.metadata.managedFields?.some((f) => f.manager === "tinyhost" && f.operation === "Apply")).toBe(true);
    }

    const secret = await kube.get(secrets, "tinysystems-nats-auth", ns);
    const token = decode(secret.data?.token);
    expect(token).toMatch(/^[A-Za-z0-9]{40}$/);
    const sts = await kube.get(statefulSets, "tinysystems-nats", ns);
    expect((sts.spec as { volumeClaimTemplates: { metadata: { name: string } }[] }).volumeClaimTemplates.map((t) => t.metadata.name)).toEqual(["tinysystems-nats-js"]);
    expect((await kube.get(services, "tinysystems-nats", ns)).spec?.ports?.map((p) => p.port)).toEqual([4222]);
    expect((await kube.get(configMaps, "tinysystems-nats-config", ns)).data?.["nats.conf"]).toContain("token: $NATS_TOKEN");
    expect((await kube.get(services, "tinysystems-otel-collector", ns)).spec?.ports?.map((p) => p.port)).toEqual([2345]);
    await kube.get(deployments, "tinysystems-otel-collector", ns);
    await kube.get(configMaps, "tinysystems-otel-collector", ns);

    const release = { "app.kubernetes.io/name": "tinysystems-operator", "app.kubernetes.io/instance": RELEASE, "app.kubernetes.io/managed-by": "tinyhost" };
    const sa = await kube.get(serviceAccounts, "shop-controller-manager", ns);
    expect(sa.metadata.labels).toMatchObject({ ...release, "app.kubernetes.io/component": "rbac" });
    const clusterRole = await kube.get(clusterRoles, `shop-${ns}-manager-role`);
    expect(clusterRole.metadata.labels).toMatchObject(release);
    expect(clusterRole.rules?.some((r) => r.resources?.includes("tinynodes"))).toBe(true);
    const crb = await kube.get(clusterRoleBindings, `shop-${ns}-manager-rolebinding`);
    expect(crb.subjects).toEqual([{ kind: "ServiceAccount", name: "shop-controller-manager", namespace: ns }]);
    const leader = await kube.get(roles, "shop-leader-election-role", ns);
    expect(leader.rules?.some((r) => r.apiGroups?.includes("coordination.k8s.io") && r.resources?.includes("leases"))).toBe(true);
    expect((await kube.get(roleBindings, "shop-leader-election-rolebinding", ns)).roleRef.name).toBe("shop-leader-election-role");
    expect((await kube.get(roles, "shop-extra", ns)).rules?.map((r) => r.resources?.[0])).toEqual(["pods", "services", "ingresses"]);
    await kube.get(roleBindings, "shop-extra", ns);

    const service = await kube.get(services, "shop-manager-service", ns);
    expect(service.metadata.labels).toMatchObject({ ...release, "app.kubernetes.io/component": "manager" });
    expect(service.spec?.selector).toEqual({ "control-plane": "controller-manager", "app.kubernetes.io/name": "tinysystems-operator", "app.kubernetes.io/instance": RELEASE });
    const ingress = await kube.get(ingresses, "shop-manager-ingress", ns);
    expect(ingress.metadata.labels).toMatchObject(release);
    expect(ingress.metadata.annotations?.["tinysystems.io/ingress-hostname-suffix"]).toBe("apps.example.com");
    expect(ingress.spec?.rules).toBeUndefined();
    expect(ingress.spec?.tls).toBeUndefined();

    const deployment = await kube.get(deployments, "shop-controller-manager", ns);
    expect(deployment.metadata.labels).toMatchObject({ ...release, "app.kubernetes.io/component": "manager", "control-plane": "controller-manager" });
    const env = envOf(deployment);
    expect(env.TINY_NATS_URL).toBe(`nats://${token}@tinysystems-nats.${ns}.svc:4222`);
    expect(env.RELEASE_NAME).toBe(RELEASE);
    expect(env.SELF_SERVICE_HOST).toBe("shop-manager-service:8483");
    expect(env.OTLP_DSN).toBe("http://token@tinysystems-otel-collector:2345");
  });

  test("a second run changes nothing (every resourceVersion stays)", async () => {
    const ns = freshNamespace("prov-idem");
    const first = await run(ns);
    const before = await liveVersions(first.objects);
    const second = await run(ns);
    expect(second.objects.filter((o) => o.result !== "unchanged" && o.result !== "kept").map((o) => `${o.kind}/${o.name}:${o.result}`)).toEqual([]);
    expect(await liveVersions(second.objects)).toEqual(before);
  });

  test("a new image version changes only the Deployment", async () => {
    const ns = freshNamespace("prov-upgrade");
    const first = await run(ns);
    const before = await liveVersions(first.objects);
    const second = await run(ns, { image: "example.com/acme/shop:1.1.0" });
    const after = await liveVersions(second.objects);
    const changed = Object.keys(after).filter((k) => after[k] !== before[k]);
    expect(changed).toEqual([`Deployment ${ns}/shop-controller-manager`]);
    const deployment = await kube.get(deployments, "shop-controller-manager", ns);
    const container = (deployment.spec as { template: { spec: { containers: { image: string; args: string[] }[] } } }).template.spec.containers[0]!;
    expect(container.image).toBe("example.com/acme/shop:1.1.0");
    expect(container.args).toContain("--version=1.1.0");
  });

  test("an existing NATS auth Secret is kept and its token used", async () => {
    const ns = await cp.newNamespace("prov-token");
    await kube.create(secrets, { metadata: { name: "tinysystems-nats-auth" }, data: { token: Buffer.from("keepMe123").toString("base64") } }, { namespace: ns });
    const rv = (await kube.get(secrets, "tinysystems-nats-auth", ns)).metadata.resourceVersion;
    const first = await run(ns);
    const second = await run(ns);
    for (const result of [first, second]) expect(result.objects.find((o) => o.kind === "Secret")?.result).toBe("kept");
    const secret = await kube.get(secrets, "tinysystems-nats-auth", ns);
    expect(secret.metadata.resourceVersion).toBe(rv);
    expect(decode(secret.data?.token)).toBe("keepMe123");
    expect(envOf(await kube.get(deployments, "shop-controller-manager", ns)).TINY_NATS_URL).toBe(`nats://keepMe123@tinysystems-nats.${ns}.svc:4222`);
  });

  test("the Service port and Ingress rules ExposePort added survive a re-provision", async () => {
    const ns = freshNamespace("prov-expose");
    await run(ns, { ingressSuffix: "apps.example.com" });
    const podName = "shop-controller-manager-5d8f9-xk2lp";
    await kube.create(
      pods,
      {
        metadata: { name: podName, labels: { "control-plane": "controller-manager", "app.kubernetes.io/name": "tinysystems-operator", "app.kubernetes.io/instance": RELEASE } },
        spec: { serviceAccountName: "shop-controller-manager", containers: [{ name: "manager", image: IMAGE }] },
      },
      { namespace: ns },
    );
    const manager = createResourceManager({ kube, namespace: ns, podName, env: {} });
    const hosts = await manager.exposePort({ port: 8080, autoHostName: "shop" });
    expect(hosts).toEqual(["shop-apps.example.com"]);

    // Re-provision with a new version and a new suffix: tinyhost's own fields change, ExposePort's stay.
    await run(ns, { image: "example.com/acme/shop:1.2.0", ingressSuffix: "new.example.com" });

    const service = await kube.get(services, "shop-manager-service", ns);
    expect(service.spec?.ports?.map((p) => `${p.name}:${p.port}`)).toEqual(["grpc:8483", "port8080:8080"]);
    const ingress = await kube.get(ingresses, "shop-manager-ingress", ns);
    expect(ingress.metadata.annotations?.["tinysystems.io/ingress-hostname-suffix"]).toBe("new.example.com");
    expect(ingress.spec?.rules).toEqual([
      { host: "shop-apps.example.com", http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "shop-manager-service", port: { number: 8080 } } } }] } },
    ]);
    expect(ingress.spec?.tls).toEqual([{ hosts: ["shop-apps.example.com"], secretName: "shop-apps.example.com-tls" }]);
  });

  test("refuses to replace a release that runs an image from another repository", async () => {
    const ns = freshNamespace("prov-guard");
    await run(ns);
    const rv = (await kube.get(deployments, "shop-controller-manager", ns)).metadata.resourceVersion;
    const error = await run(ns, { image: "example.com/other/shop:9.0.0" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ReleaseImageMismatchError);
    expect((await kube.get(deployments, "shop-controller-manager", ns)).metadata.resourceVersion).toBe(rv);
  });

  test("--no-nats installs no broker and leaves TINY_NATS_URL unset", async () => {
    const ns = freshNamespace("prov-nonats");
    const result = await run(ns, { nats: false });
    expect(result.objects.some((o) => o.name.startsWith("tinysystems-nats"))).toBe(false);
    expect((await kube.list(statefulSets, { namespace: ns })).items).toEqual([]);
    expect(envOf(await kube.get(deployments, "shop-controller-manager", ns)).TINY_NATS_URL).toBeUndefined();
  });
});
