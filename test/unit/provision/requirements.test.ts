/**
 * `tinyhost provision` grants what the module's components declare in `requirements` — the same
 * rules `tools rbac-values` puts in the chart overlay: declared namespaced rules and a `get` pinned
 * to the named Secrets join the Role `R-extra`; cluster-wide rules (and the chart's Kubernetes
 * resource access) become the ClusterRole `<R-N>-extra` bound to the module's ServiceAccount.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import YAML from "yaml";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { provisionCommand } from "../../../src/cli/commands/provision.ts";
import { rbacCommand } from "../../../src/cli/commands/rbac.ts";
import { clusterRoleBindings, clusterRoles, type PolicyRule } from "../../../src/k8s/client/index.ts";
import {
  chartRbacValues,
  exposeRules,
  pinnedNamesFor,
  releaseManifests,
  releaseRbac,
  resolveOptions,
  uninstallTargets,
  type ComponentNeeds,
  type ManifestObject,
} from "../../../src/provision/index.ts";

const FIXTURES = resolve(import.meta.dir, "../../fixtures/requirements-components");

const vault: ComponentNeeds = {
  name: "vault_reader",
  usesClient: false,
  requirements: {
    rbac: { extraNamespacedRules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] }] },
    secrets: { names: ["api-creds", "db"] },
  },
};
const lister: ComponentNeeds = {
  name: "pod_lister",
  usesClient: false,
  requirements: { rbac: { enableKubernetesResourceAccess: true, extraRules: [{ apiGroups: ["batch"], resources: ["jobs"], verbs: ["create"] }] } },
};
/** A second component declaring a Secret and a rule already declared: each is granted once. */
const twin: ComponentNeeds = {
  name: "twin",
  usesClient: false,
  requirements: { secrets: { names: ["db"] }, rbac: { extraRules: [{ apiGroups: ["batch"], resources: ["jobs"], verbs: ["create"] }] } },
};

function options(components: ComponentNeeds[]) {
  return resolveOptions({ namespace: "prod", name: "shop", image: "ghcr.io/acme/shop:1.2.0", components });
}

function find(objects: ManifestObject[], kind: string, name: string): ManifestObject | undefined {
  return objects.find((o) => o.kind === kind && o.metadata.name === name);
}

describe("provision: declared requirements", () => {
  test("namespaced rules and the named Secrets join the Role shop-extra after the ExposePort rules, as rbac-values emits them", () => {
    const o = options([vault, twin]);
    const extra = find(releaseRbac(o), "Role", "shop-extra")!;
    const expose = exposeRules(pinnedNamesFor(o));
    expect(extra.rules).toEqual([
      ...expose,
      { apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] },
      { apiGroups: [""], resources: ["secrets"], verbs: ["get"], resourceNames: ["api-creds", "db"] },
    ]);
    // Same declared rules as the chart overlay (no component takes the client, so the overlay holds only them).
    expect((extra.rules as PolicyRule[]).slice(expose.length)).toEqual(chartRbacValues([vault, twin])!.rbac.extraNamespacedRules!);
  });

  test("cluster-wide rules and resource access become ClusterRole shop-prod-extra, bound to the module's ServiceAccount", () => {
    const o = options([lister, twin]);
    const objects = releaseRbac(o);
    const role = find(objects, "ClusterRole", "shop-prod-extra")!;
    expect(role.metadata.namespace).toBeUndefined();
    expect(role.metadata.labels).toMatchObject({ "app.kubernetes.io/instance": "shop", "app.kubernetes.io/managed-by": "tinyhost" });
    expect(role.rules).toEqual([
      { apiGroups: ["apps"], resources: ["deployments"], verbs: ["get", "list", "patch", "update", "watch"] },
      { apiGroups: [""], resources: ["pods", "services"], verbs: ["get", "list", "patch", "update", "watch"] },
      { apiGroups: ["networking.k8s.io"], resources: ["ingresses"], verbs: ["get", "list", "patch", "update", "watch"] },
      { apiGroups: ["batch"], resources: ["jobs"], verbs: ["create"] },
    ]);
    expect((role.rules as PolicyRule[]).slice(3)).toEqual(chartRbacValues([lister, twin])!.rbac.extraRules!);
    const binding = find(objects, "ClusterRoleBinding", "shop-prod-extra")!;
    expect(binding.roleRef).toEqual({ apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "shop-prod-extra" });
    expect(binding.subjects).toEqual([{ kind: "ServiceAccount", name: "shop-controller-manager", namespace: "prod" }]);
    // Applied through the cluster-scoped resources, after the Roles and before the Service.
    const manifests = releaseManifests(o, { nats: true });
    expect(manifests.map((m) => m.object.kind)).toEqual([
      "ServiceAccount",
      "Role",
      "RoleBinding",
      "Role",
      "RoleBinding",
      "Role",
      "RoleBinding",
      "ClusterRole",
      "ClusterRoleBinding",
      "Service",
      "Ingress",
      "Deployment",
    ]);
    expect(manifests[7]!.resource).toBe(clusterRoles as never);
    expect(manifests[8]!.resource).toBe(clusterRoleBindings as never);
  });

  test("components without requirements change nothing: no ClusterRole, shop-extra holds only the ExposePort rules", () => {
    const plain = options([{ name: "plain", usesClient: true }]);
    expect(releaseRbac(plain)).toEqual(releaseRbac(options([])));
    expect(releaseRbac(plain).some((o) => o.kind === "ClusterRole")).toBe(false);
    expect(find(releaseRbac(plain), "Role", "shop-extra")!.rules).toEqual(exposeRules(pinnedNamesFor(plain)));
  });

  test("uninstall removes the declared ClusterRole after the ServiceAccount, whether or not it is given the components", () => {
    const names = (o: ReturnType<typeof options>) => uninstallTargets(o).map((t) => `${t.kind}/${t.name}`);
    const expected = [
      "ServiceAccount/shop-controller-manager",
      "ClusterRoleBinding/shop-prod-extra",
      "ClusterRole/shop-prod-extra",
      "ClusterRoleBinding/shop-prod-manager-rolebinding",
      "ClusterRole/shop-prod-manager-role",
    ];
    for (const o of [options([]), options([lister])]) {
      const list = names(o);
      expect(list.slice(list.indexOf("ServiceAccount/shop-controller-manager"))).toEqual(expected);
    }
  });
});

describe("tinyhost provision --dry-run --components", () => {
  const write = process.stdout.write;
  const error = console.error;
  afterEach(() => {
    process.stdout.write = write;
    console.error = error;
  });

  async function dryRun(...args: string[]): Promise<{ code: number; docs: ManifestObject[]; err: string }> {
    let out = "";
    let err = "";
    process.stdout.write = ((chunk: string) => {
      out += chunk;
      return true;
    }) as typeof process.stdout.write;
    console.error = (l: string) => void (err += `${l}\n`);
    try {
      const code = await provisionCommand.run(["--dry-run", "-n", "prod", "--name", "shop", "--image", "ghcr.io/acme/shop:1.2.0", ...args]);
      return { code, docs: YAML.parseAllDocuments(out).map((d) => d.toJS() as ManifestObject), err };
    } finally {
      process.stdout.write = write;
      console.error = error;
    }
  }

  test("grants the requirements the component files declare, on top of the bundled set", async () => {
    const r = await dryRun("--components", FIXTURES);
    expect(r.code).toBe(0);
    const extra = find(r.docs, "Role", "shop-extra")!;
    expect((extra.rules as PolicyRule[]).slice(-2)).toEqual([
      { apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] },
      { apiGroups: [""], resources: ["secrets"], verbs: ["get"], resourceNames: ["api-creds"] },
    ]);
    expect(find(r.docs, "ClusterRole", "shop-prod-extra")!.rules).toContainEqual({ apiGroups: ["batch"], resources: ["jobs"], verbs: ["create"] });
    expect(find(r.docs, "ClusterRoleBinding", "shop-prod-extra")).toBeDefined();
  });

  test("the bundled set alone declares nothing beyond the runtime's rules", async () => {
    const r = await dryRun();
    expect(r.code).toBe(0);
    expect(r.docs.some((d) => d.kind === "ClusterRole")).toBe(false);
    expect(find(r.docs, "Role", "shop-extra")!.rules).toEqual(exposeRules(pinnedNamesFor(options([]))));
  });

  test("a component file that does not load stops it (exit 1), naming the file: its requirements would go ungranted", async () => {
    const dir = mkdtempSync(join(tmpdir(), "th-prov-components-"));
    writeFileSync(join(dir, "broken.ts"), 'throw new Error("boom at import");\n');
    const r = await dryRun("--components", dir);
    expect(r.code).toBe(1);
    expect(r.err).toContain("1 component file did not load, so their requirements cannot be granted");
    expect(r.err).toContain("broken.ts");
    expect(r.docs).toEqual([]);
  });

  test("tinyhost rbac --components prints the same RBAC provision applies", async () => {
    let out = "";
    process.stdout.write = ((chunk: string) => {
      out += chunk;
      return true;
    }) as typeof process.stdout.write;
    const code = await rbacCommand.run(["--name", "shop", "-n", "prod", "--components", FIXTURES]);
    process.stdout.write = write;
    expect(code).toBe(0);
    const printed = YAML.parseAllDocuments(out).map((d) => d.toJS() as ManifestObject);
    const applied = (await dryRun("--components", FIXTURES)).docs.filter(
      (d) =>
        ["ServiceAccount", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"].includes(d.kind) &&
        d.metadata.labels?.["app.kubernetes.io/instance"] === "shop",
    );
    expect(printed).toEqual(applied);
    expect(printed.map((d) => d.kind)).toContain("ClusterRole");
  });

  test("a missing components directory exits 1, naming it", async () => {
    const r = await dryRun("--components", "/nonexistent/components");
    expect(r.code).toBe(1);
    expect(r.err).toContain("components directory not found: /nonexistent/components");
    expect(r.docs).toEqual([]);
  });
});
