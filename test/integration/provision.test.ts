/**
 * `tinyhost provision` against the real kube-apiserver: every object is created with the chart's
 * labels, a re-run changes nothing, a new image version changes only the Deployment, the NATS
 * token Secret is never replaced, and the Service port / Ingress rules ExposePort adds survive a
 * re-provision (server-side apply field ownership, provision.md §8).
 * No controller manager runs (test-control-plane.md §3.3): Deployments and StatefulSets create no
 * pods, so the tests check objects, never pods.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connectControlPlane, type ControlPlane } from "../support/control-plane.ts";
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
  isNotFound,
  type KubeClient,
  type KubeObject,
  type ResourceDescriptor,
} from "../../src/k8s/client/index.ts";
import { createResourceManager } from "../../src/k8s/resources/index.ts";
import { mountServiceAccount, cleanupPodDirs } from "./chart-pod.ts";
import { tinyModules } from "../../src/k8s/controllers/index.ts";
import { uninstallCommand } from "../../src/cli/commands/uninstall.ts";
import { provisionCommand } from "../../src/cli/commands/provision.ts";
import {
  provision,
  resolveOptions,
  ReleaseImageMismatchError,
  type AppliedObject,
  type ComponentNeeds,
  type ProvisionInput,
} from "../../src/provision/index.ts";

let cp: ControlPlane;
let kube: KubeClient;

/** A client authenticated as ServiceAccount `name` (a TokenRequest token, as a pod gets). */
async function serviceAccountClient(namespace: string, name: string): Promise<KubeClient> {
  const mount = await mountServiceAccount(cp, namespace, name);
  return createKubeClient({ kubeconfig: mount.kubeconfig, env: {} });
}

beforeAll(async () => void ({ cp, kube } = await connectControlPlane()), 900_000);

afterAll(() => cleanupPodDirs());

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
  const containers = (deployment.spec as { template: { spec: { containers: { env?: { name: string; value?: string; valueFrom?: unknown }[] }[] } } }).template
    .spec.containers;
  return Object.fromEntries((containers[0]!.env ?? []).map((e) => [e.name, e.value ?? JSON.stringify(e.valueFrom)]));
}

describe("tinyhost provision", () => {
  test("creates every object with the release labels, through the CLI flags", async () => {
    const ns = freshNamespace("prov-all");
    const code = await provisionCommand.run([
      "--namespace",
      ns,
      "--name",
      RELEASE,
      "--image",
      IMAGE,
      "--ingress-suffix",
      "apps.example.com",
      "--kubeconfig",
      cp.tokenKubeconfig,
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
    expect((sts.spec as { volumeClaimTemplates: { metadata: { name: string } }[] }).volumeClaimTemplates.map((t) => t.metadata.name)).toEqual([
      "tinysystems-nats-js",
    ]);
    expect((await kube.get(services, "tinysystems-nats", ns)).spec?.ports?.map((p) => p.port)).toEqual([4222]);
    expect((await kube.get(configMaps, "tinysystems-nats-config", ns)).data?.["nats.conf"]).toContain("token: $NATS_TOKEN");
    expect((await kube.get(services, "tinysystems-otel-collector", ns)).spec?.ports?.map((p) => p.port)).toEqual([2345]);
    await kube.get(deployments, "tinysystems-otel-collector", ns);
    await kube.get(configMaps, "tinysystems-otel-collector", ns);

    const release = { "app.kubernetes.io/name": "tinysystems-operator", "app.kubernetes.io/instance": RELEASE, "app.kubernetes.io/managed-by": "tinyhost" };
    const sa = await kube.get(serviceAccounts, "shop-controller-manager", ns);
    expect(sa.metadata.labels).toMatchObject({ ...release, "app.kubernetes.io/component": "rbac" });
    const managerRole = await kube.get(roles, "shop-manager-role", ns);
    expect(managerRole.metadata.labels).toMatchObject(release);
    expect(managerRole.rules?.some((r) => r.resources?.includes("tinynodes"))).toBe(true);
    const rb = await kube.get(roleBindings, "shop-manager-rolebinding", ns);
    expect(rb.subjects).toEqual([{ kind: "ServiceAccount", name: "shop-controller-manager", namespace: ns }]);
    expect((await kube.list(clusterRoles, { labelSelector: "app.kubernetes.io/instance=shop" })).items.map((r) => r.metadata.name)).not.toContain(
      `shop-${ns}-manager-role`,
    );
    const leader = await kube.get(roles, "shop-leader-election-role", ns);
    expect(leader.rules?.some((r) => r.apiGroups?.includes("coordination.k8s.io") && r.resources?.includes("leases"))).toBe(true);
    expect((await kube.get(roleBindings, "shop-leader-election-rolebinding", ns)).roleRef.name).toBe("shop-leader-election-role");
    expect((await kube.get(roles, "shop-extra", ns)).rules?.map((r) => r.resources?.[0])).toEqual(["pods", "services", "services", "ingresses", "ingresses"]);
    await kube.get(roleBindings, "shop-extra", ns);

    const service = await kube.get(services, "shop-manager-service", ns);
    expect(service.metadata.labels).toMatchObject({ ...release, "app.kubernetes.io/component": "manager" });
    expect(service.spec?.selector).toEqual({
      "control-plane": "controller-manager",
      "app.kubernetes.io/name": "tinysystems-operator",
      "app.kubernetes.io/instance": RELEASE,
    });
    const ingress = await kube.get(ingresses, "shop-manager-ingress", ns);
    expect(ingress.metadata.labels).toMatchObject(release);
    expect(ingress.metadata.annotations?.["tinysystems.io/ingress-hostname-suffix"]).toBe("apps.example.com");
    expect(ingress.spec?.rules).toBeUndefined();
    expect(ingress.spec?.tls).toBeUndefined();

    const deployment = await kube.get(deployments, "shop-controller-manager", ns);
    expect(deployment.metadata.labels).toMatchObject({ ...release, "app.kubernetes.io/component": "manager", "control-plane": "controller-manager" });
    const env = envOf(deployment);
    expect(env.TINY_NATS_URL).toBe(`nats://$(NATS_TOKEN)@tinysystems-nats.${ns}.svc:4222`);
    expect(JSON.stringify(deployment)).not.toContain(token);
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
    await kube.create(
      secrets,
      { metadata: { name: "tinysystems-nats-auth" }, data: { token: Buffer.from("keepMe123").toString("base64") } },
      { namespace: ns },
    );
    const rv = (await kube.get(secrets, "tinysystems-nats-auth", ns)).metadata.resourceVersion;
    const first = await run(ns);
    const second = await run(ns);
    for (const result of [first, second]) expect(result.objects.find((o) => o.kind === "Secret")?.result).toBe("kept");
    const secret = await kube.get(secrets, "tinysystems-nats-auth", ns);
    expect(secret.metadata.resourceVersion).toBe(rv);
    expect(decode(secret.data?.token)).toBe("keepMe123");
    const env = envOf(await kube.get(deployments, "shop-controller-manager", ns));
    expect(JSON.parse(env.NATS_TOKEN!)).toEqual({ secretKeyRef: { name: "tinysystems-nats-auth", key: "token" } });
    expect(env.TINY_NATS_URL).toBe(`nats://$(NATS_TOKEN)@tinysystems-nats.${ns}.svc:4222`);
  });

  test("the Service port and Ingress rules ExposePort added survive a re-provision", async () => {
    const ns = freshNamespace("prov-expose");
    await run(ns, { ingressSuffix: "apps.example.com" });
    const podName = "shop-controller-manager-5d8f9-xk2lp";
    await kube.create(
      pods,
      {
        metadata: {
          name: podName,
          labels: { "control-plane": "controller-manager", "app.kubernetes.io/name": "tinysystems-operator", "app.kubernetes.io/instance": RELEASE },
        },
        spec: { serviceAccountName: "shop-controller-manager", containers: [{ name: "manager", image: IMAGE }] },
      },
      { namespace: ns },
    );
    // As the module's own ServiceAccount: provision's Roles (writes pinned to the release's names) allow it.
    const moduleKube = await serviceAccountClient(ns, "shop-controller-manager");
    const manager = createResourceManager({ kube: moduleKube, namespace: ns, podName, env: {} });
    const hosts = await manager.exposePort({ port: 8080, autoHostName: "shop" });
    expect(hosts).toEqual(["shop-apps.example.com"]);

    // Re-provision with a new version and a new suffix: tinyhost's own fields change, ExposePort's stay.
    await run(ns, { image: "example.com/acme/shop:1.2.0", ingressSuffix: "new.example.com" });

    const service = await kube.get(services, "shop-manager-service", ns);
    expect(service.spec?.ports?.map((p) => `${p.name}:${p.port}`)).toEqual(["grpc:8483", "port8080:8080"]);
    const ingress = await kube.get(ingresses, "shop-manager-ingress", ns);
    expect(ingress.metadata.annotations?.["tinysystems.io/ingress-hostname-suffix"]).toBe("new.example.com");
    expect(ingress.spec?.rules).toEqual([
      {
        host: "shop-apps.example.com",
        http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "shop-manager-service", port: { number: 8080 } } } }] },
      },
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

  test("--autoscale on an apiserver without KEDA is refused by discovery before anything is applied (exit 1)", async () => {
    const ns = freshNamespace("prov-nokeda");
    // This apiserver serves no keda.sh group (KEDA's suites run on their own control planes).
    expect((await cp.request("GET", "/apis/keda.sh/v1alpha1")).status).toBe(404);
    const printed: string[] = [];
    const error = console.error;
    const log = console.log;
    console.error = (m: string) => void printed.push(m);
    console.log = (m: string) => void printed.push(m);
    let code: number;
    try {
      code = await provisionCommand.run(["--namespace", ns, "--name", RELEASE, "--image", IMAGE, "--autoscale", "min=0", "--kubeconfig", cp.tokenKubeconfig]);
    } finally {
      console.error = error;
      console.log = log;
    }
    expect(code).toBe(1);
    // The min=0 warning (no --manifests) comes first; then the refusal, and no object line.
    expect(printed.filter((l) => !l.startsWith("warning: min=0"))).toEqual([
      "tinyhost provision: KEDA is not installed in this cluster (no scaledobjects.keda.sh): install KEDA or drop --autoscale [PROVISION_NO_KEDA]",
    ]);
    // Nothing was written: not even the namespace.
    expect(
      await kube.get(namespaces, ns).then(
        () => "exists",
        (e: unknown) => (isNotFound(e) ? "absent" : e),
      ),
    ).toBe("absent");
  });

  test("--no-nats installs no broker and leaves TINY_NATS_URL unset", async () => {
    const ns = freshNamespace("prov-nonats");
    const result = await run(ns, { nats: false });
    expect(result.objects.some((o) => o.name.startsWith("tinysystems-nats"))).toBe(false);
    expect((await kube.list(statefulSets, { namespace: ns })).items).toEqual([]);
    expect(envOf(await kube.get(deployments, "shop-controller-manager", ns)).TINY_NATS_URL).toBeUndefined();
  });

  test("the module's ServiceAccount may write only the release's own Service and Ingress", async () => {
    const ns = freshNamespace("prov-pinned");
    await run(ns);
    await kube.create(services, { metadata: { name: "someone-else", labels: { app: "x" } }, spec: { ports: [{ name: "http", port: 80 }] } }, { namespace: ns });
    const moduleKube = await serviceAccountClient(ns, "shop-controller-manager");
    const own = await moduleKube.get(services, "shop-manager-service", ns);
    await moduleKube.update(services, own, { namespace: ns });
    const other = await kube.get(services, "someone-else", ns);
    const denied = await moduleKube.update(services, other, { namespace: ns }).then(
      () => undefined,
      (e: unknown) => e as { reason?: string },
    );
    expect(denied?.reason).toBe("Forbidden");
    expect((await moduleKube.list(services, { namespace: ns })).items.length).toBeGreaterThanOrEqual(2); // list cannot be pinned
    const otherNs = await cp.newNamespace("prov-pinned-other");
    const crossNs = await moduleKube.list(tinyModules, { namespace: otherNs }).then(
      () => undefined,
      (e: unknown) => e as { reason?: string },
    );
    expect(crossNs?.reason).toBe("Forbidden"); // namespaced Roles only: nothing outside its namespace
  });

  test("grants what the components declare: get of the named Secret only, the cluster-wide rule; a run without them removes the ClusterRole", async () => {
    const ns = freshNamespace("prov-req");
    const components: ComponentNeeds[] = [
      { name: "vault_reader", usesClient: false, requirements: { secrets: { names: ["api-creds"] } } },
      { name: "ns_reader", usesClient: false, requirements: { rbac: { extraRules: [{ apiGroups: [""], resources: ["namespaces"], verbs: ["get"] }] } } },
    ];
    const first = await run(ns, { components });
    expect(first.objects.filter((o) => o.kind.startsWith("Cluster")).map((o) => `${o.kind}/${o.name}:${o.result}`)).toEqual([
      `ClusterRole/shop-${ns}-extra:created`,
      `ClusterRoleBinding/shop-${ns}-extra:created`,
    ]);
    const token = (v: string) => ({ token: Buffer.from(v).toString("base64") });
    await kube.create(secrets, { metadata: { name: "api-creds" }, data: token("s3cret") }, { namespace: ns });
    await kube.create(secrets, { metadata: { name: "other" }, data: token("not-yours") }, { namespace: ns });
    const moduleKube = await serviceAccountClient(ns, "shop-controller-manager");
    const reason = (p: Promise<unknown>) =>
      p.then(
        () => "allowed",
        (e: unknown) => (e as { reason?: string }).reason ?? String(e),
      );

    expect(decode((await moduleKube.get(secrets, "api-creds", ns)).data?.token)).toBe("s3cret");
    expect(await reason(moduleKube.get(secrets, "other", ns))).toBe("Forbidden");
    expect(await reason(moduleKube.get(secrets, "tinysystems-nats-auth", ns))).toBe("Forbidden");
    expect(await reason(moduleKube.list(secrets, { namespace: ns }))).toBe("Forbidden"); // get pinned by name, never list
    expect(await reason(moduleKube.get(namespaces, ns))).toBe("allowed"); // only a ClusterRole can grant a cluster-scoped kind

    // The components no longer declare anything: the ClusterRole goes, the Secret rule leaves R-extra.
    const second = await run(ns);
    expect(second.objects.filter((o) => o.result === "deleted").map((o) => `${o.kind}/${o.name}`)).toEqual([
      `ClusterRoleBinding/shop-${ns}-extra`,
      `ClusterRole/shop-${ns}-extra`,
    ]);
    expect(
      await kube.get(clusterRoles, `shop-${ns}-extra`).then(
        () => "present",
        () => "gone",
      ),
    ).toBe("gone");
    // The authorizer's RBAC cache follows the deletions within moments.
    let after: string[] = [];
    for (let i = 0; i < 50; i++) {
      after = [await reason(moduleKube.get(secrets, "api-creds", ns)), await reason(moduleKube.get(namespaces, ns))];
      if (after.every((r) => r === "Forbidden")) break;
      await Bun.sleep(100);
    }
    expect(after).toEqual(["Forbidden", "Forbidden"]);
  });

  test("removes the cluster-scoped role earlier tinyhost versions applied", async () => {
    const ns = freshNamespace("prov-legacy");
    const labels = { "app.kubernetes.io/managed-by": "tinyhost", "app.kubernetes.io/instance": RELEASE };
    await kube.create(clusterRoles, { metadata: { name: `shop-${ns}-manager-role`, labels }, rules: [] });
    await kube.create(clusterRoleBindings, {
      metadata: { name: `shop-${ns}-manager-rolebinding`, labels },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: `shop-${ns}-manager-role` },
      subjects: [{ kind: "ServiceAccount", name: "shop-controller-manager", namespace: ns }],
    });
    const result = await run(ns);
    expect(result.objects.filter((o) => o.result === "deleted").map((o) => `${o.kind}/${o.name}`)).toEqual([
      `ClusterRoleBinding/shop-${ns}-manager-rolebinding`,
      `ClusterRole/shop-${ns}-manager-role`,
    ]);
    const gone = await kube.get(clusterRoles, `shop-${ns}-manager-role`).then(
      () => false,
      () => true,
    );
    expect(gone).toBe(true);
  });
});

describe("tinyhost uninstall", () => {
  async function exists(res: ResourceDescriptor<KubeObject>, name: string, ns?: string): Promise<boolean> {
    return kube.get(res, name, ns).then(
      () => true,
      () => false,
    );
  }

  test("deletes the TinyModule first, then the release objects; keeps the add-ons, CRDs and namespace unless asked", async () => {
    const ns = freshNamespace("uninst");
    await run(ns);
    await kube.create(tinyModules, { metadata: { name: "shop" }, spec: { image: "shop:1.0.0" } } as never, { namespace: ns });
    const lines: string[] = [];
    const log = console.log;
    console.log = (l: string) => lines.push(l);
    let code;
    try {
      code = await uninstallCommand.run(["--name", RELEASE, "--namespace", ns, "--kubeconfig", cp.tokenKubeconfig]);
    } finally {
      console.log = log;
    }
    expect(code).toBe(0);
    // The scaling objects before the Deployment: KEDA must not scale what is being deleted (absent here: no --autoscale).
    expect(lines.slice(0, 14)).toEqual([
      `tinymodule/shop (${ns}) deleted`,
      `scaledobject/shop-scaler (${ns}) absent`,
      `triggerauthentication/shop-scaler (${ns}) absent`,
      `job/shop-broker-setup (${ns}) absent`,
      `deployment/shop-controller-manager (${ns}) deleted`,
      `ingress/shop-manager-ingress (${ns}) deleted`,
      `service/shop-manager-service (${ns}) deleted`,
      `rolebinding/shop-extra (${ns}) deleted`,
      `role/shop-extra (${ns}) deleted`,
      `rolebinding/shop-leader-election-rolebinding (${ns}) deleted`,
      `role/shop-leader-election-role (${ns}) deleted`,
      `rolebinding/shop-manager-rolebinding (${ns}) deleted`,
      `role/shop-manager-role (${ns}) deleted`,
      `serviceaccount/shop-controller-manager (${ns}) deleted`,
    ]);
    expect(await exists(tinyModules as ResourceDescriptor<KubeObject>, "shop", ns)).toBe(false);
    expect(await exists(deployments, "shop-controller-manager", ns)).toBe(false);
    expect(await exists(statefulSets, "tinysystems-nats", ns)).toBe(true);
    expect(await exists(secrets, "tinysystems-nats-auth", ns)).toBe(true);
    expect(await exists(customResourceDefinitions, "tinynodes.operator.tinysystems.io")).toBe(true);
    expect(await exists(namespaces, ns)).toBe(true);
  });

  test("--with-addons also removes the collector and the broker but keeps its auth Secret; objects of another manager are kept", async () => {
    const ns = freshNamespace("uninst-all");
    await run(ns);
    await kube.mergePatch(services, "shop-manager-service", { metadata: { labels: { "app.kubernetes.io/managed-by": "Helm" } } }, { namespace: ns });
    const log = console.log;
    const lines: string[] = [];
    console.log = (l: string) => lines.push(l);
    try {
      expect(await uninstallCommand.run(["--name", RELEASE, "-n", ns, "--with-addons", "--kubeconfig", cp.tokenKubeconfig])).toBe(0);
    } finally {
      console.log = log;
    }
    expect(lines).toContain(`service/shop-manager-service (${ns}) kept`);
    expect(await exists(services, "shop-manager-service", ns)).toBe(true);
    for (const [res, name] of [
      [statefulSets, "tinysystems-nats"],
      [deployments, "tinysystems-otel-collector"],
      [configMaps, "tinysystems-nats-config"],
    ] as const) {
      expect(await exists(res as ResourceDescriptor<KubeObject>, name, ns)).toBe(false);
    }
    expect(await exists(secrets, "tinysystems-nats-auth", ns)).toBe(true);
  });

  test("--dry-run lists the order without a cluster", async () => {
    const log = console.log;
    const lines: string[] = [];
    console.log = (l: string) => lines.push(l);
    try {
      expect(await uninstallCommand.run(["--name", RELEASE, "-n", "somewhere", "--delete-namespace", "--dry-run", "--kubeconfig", "/nonexistent"])).toBe(0);
    } finally {
      console.log = log;
    }
    expect(lines[0]).toBe("tinymodule/shop (somewhere)");
    expect(lines.at(-1)).toBe("namespace/somewhere");
  });
});
