import { afterEach, describe, expect, test } from "bun:test";
import YAML from "yaml";
import { rbacCommand } from "../../../src/cli/commands/rbac.ts";
import {
  chartRbacValues,
  managerServiceAccount,
  moduleRbacRules,
  pinnedNamesFor,
  releaseRbac,
  resolveOptions,
  type ModuleRbacRules,
} from "../../../src/provision/index.ts";
import type { PolicyRule } from "../../../src/k8s/client/index.ts";

const HELPER_KINDS = ["tinyflows", "tinyprojects", "tinywidgetpages", "tinyscenarios"];
const NAMES = { tinyModule: "shop", lease: "shop-lock", service: "shop-manager-service", ingress: "shop-manager-ingress" };

function all(rules: ModuleRbacRules): PolicyRule[] {
  return [...rules.manager, ...rules.leaderElection, ...rules.expose];
}

/** Verbs granted on `resource`, as "verb" (any name) or "verb@name" (pinned). */
function grants(rules: PolicyRule[], group: string, resource: string): string[] {
  return rules
    .filter((r) => r.apiGroups?.includes(group) && r.resources?.includes(resource))
    .flatMap((r) => r.verbs.map((v) => (r.resourceNames ? r.resourceNames.map((n) => `${v}@${n}`).join(",") : v)));
}

describe("moduleRbacRules", () => {
  test("the Lease: create, and get/update of <module>-lock only", () => {
    expect(grants(moduleRbacRules({ names: NAMES }).leaderElection, "coordination.k8s.io", "leases")).toEqual(["create", "get@shop-lock", "update@shop-lock"]);
  });

  test("ExposePort: pods get, services/ingresses list, and writes pinned to the release's Service and Ingress", () => {
    const rules = moduleRbacRules({ names: NAMES }).expose;
    expect(grants(rules, "", "pods")).toEqual(["get"]);
    expect(grants(rules, "", "services")).toEqual(["list", "get@shop-manager-service", "update@shop-manager-service", "patch@shop-manager-service"]);
    expect(grants(rules, "networking.k8s.io", "ingresses")).toEqual([
      "list",
      "get@shop-manager-ingress",
      "update@shop-manager-ingress",
      "patch@shop-manager-ingress",
    ]);
  });

  test("TinyModules: list/watch/create namespace-wide, everything else only on the module's own", () => {
    const rules = moduleRbacRules({ names: NAMES }).manager;
    expect(grants(rules, "operator.tinysystems.io", "tinymodules")).toEqual(["list", "watch", "create", "get@shop", "update@shop", "patch@shop"]);
    expect(grants(rules, "operator.tinysystems.io", "tinymodules/status")).toEqual(["get@shop", "patch@shop", "update@shop"]);
  });

  test("TinyComponents: read, status and finalizers, as the operator chart 0.2.13 grants (the TinyComponent controller)", () => {
    const rules = moduleRbacRules({ names: NAMES }).manager;
    expect(grants(rules, "operator.tinysystems.io", "tinycomponents")).toEqual(["get", "list", "watch"]);
    expect(grants(rules, "operator.tinysystems.io", "tinycomponents/status")).toEqual(["get", "patch", "update"]);
    expect(grants(rules, "operator.tinysystems.io", "tinycomponents/finalizers")).toEqual(["update"]);
  });

  test("without names the rules are the same, unpinned (the chart overlay case)", () => {
    const rules = all(moduleRbacRules());
    expect(rules.some((r) => r.resourceNames)).toBe(false);
    expect(grants(rules, "", "services")).toEqual(["list", "get", "update", "patch"]);
  });

  test("grants the CR-helper kinds and node create/delete only with the flag", () => {
    const without = all(moduleRbacRules());
    for (const kind of HELPER_KINDS) expect(grants(without, "operator.tinysystems.io", kind)).toEqual([]);
    expect(grants(without, "operator.tinysystems.io", "tinynodes")).not.toContain("create");
    const withHelpers = all(moduleRbacRules({ withCrHelpers: true }));
    for (const kind of HELPER_KINDS) expect(grants(withHelpers, "operator.tinysystems.io", kind)).toContain("create");
    expect(grants(withHelpers, "operator.tinysystems.io", "tinynodes")).toEqual(expect.arrayContaining(["create", "delete"]));
  });

  test("never grants delete on TinyModules, secrets, configmaps or events", () => {
    const rules = all(moduleRbacRules({ withCrHelpers: true }));
    expect(grants(rules, "operator.tinysystems.io", "tinymodules")).not.toContain("delete");
    for (const r of ["secrets", "configmaps", "events"]) expect(grants(rules, "", r)).toEqual([]);
  });

  test("pins to the SDK-sanitized module name (TinyModule and Lease), the release names for Service and Ingress", () => {
    expect(pinnedNamesFor(resolveOptions({ name: "Shop_App", namespace: "prod" }))).toEqual({
      tinyModule: "shop-app",
      lease: "shop-app-lock",
      service: "shop-app-manager-service",
      ingress: "shop-app-manager-ingress",
    });
  });
});

describe("chartRbacValues (tools rbac-values)", () => {
  test("nothing when no component takes the client: the chart's own rules suffice", () => {
    expect(chartRbacValues([{ name: "ticker", usesClient: false }])).toBeUndefined();
  });

  test("a component with onClient needs the ExposePort rules as extraNamespacedRules, unpinned", () => {
    expect(chartRbacValues([{ name: "http_server", usesClient: true }])).toEqual({ rbac: { extraNamespacedRules: moduleRbacRules().expose } });
  });

  test("--with-cr-helpers adds the four kinds the chart does not grant (tinynodes it does)", () => {
    const v = chartRbacValues([], { withCrHelpers: true })!;
    expect(v.rbac.extraNamespacedRules!.flatMap((r) => r.resources)).toEqual(HELPER_KINDS);
  });
});

describe("tinyhost rbac", () => {
  const write = process.stdout.write;
  afterEach(() => {
    process.stdout.write = write;
  });

  async function print(args: string[]): Promise<unknown[]> {
    let out = "";
    process.stdout.write = ((chunk: string) => {
      out += chunk;
      return true;
    }) as typeof process.stdout.write;
    const code = await rbacCommand.run(args);
    process.stdout.write = write;
    expect(code).toBe(0);
    return YAML.parseAllDocuments(out).map((d) => d.toJSON());
  }

  test("prints the ServiceAccount, each Role and its RoleBinding, as provision applies them", async () => {
    const docs = await print(["--name", "shop", "--namespace", "prod"]);
    const o = resolveOptions({ name: "shop", namespace: "prod" });
    expect(docs).toEqual([managerServiceAccount(o), ...releaseRbac(o)] as unknown[]);
    expect(docs.map((d) => `${(d as { kind: string }).kind}/${(d as { metadata: { name: string } }).metadata.name}`)).toEqual([
      "ServiceAccount/shop-controller-manager",
      "Role/shop-manager-role",
      "RoleBinding/shop-manager-rolebinding",
      "Role/shop-leader-election-role",
      "RoleBinding/shop-leader-election-rolebinding",
      "Role/shop-extra",
      "RoleBinding/shop-extra",
    ]);
    for (const b of docs.filter((d) => (d as { kind: string }).kind === "RoleBinding")) {
      expect((b as { subjects: unknown }).subjects).toEqual([{ kind: "ServiceAccount", name: "shop-controller-manager", namespace: "prod" }]);
    }
  });

  test("--with-cr-helpers adds the flow, project, page and scenario kinds", async () => {
    const text = JSON.stringify(await print(["--with-cr-helpers"]));
    for (const kind of HELPER_KINDS) expect(text).toContain(kind);
    const plain = JSON.stringify(await print([]));
    for (const kind of HELPER_KINDS) expect(plain).not.toContain(kind);
  });
});
