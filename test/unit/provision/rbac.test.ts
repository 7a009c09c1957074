import { afterEach, describe, expect, test } from "bun:test";
import YAML from "yaml";
import { rbacCommand } from "../../../src/cli/commands/rbac.ts";
import { moduleRbacRules, releaseRoles, resolveOptions, type ModuleRbacRules } from "../../../src/provision/index.ts";
import type { PolicyRule } from "../../../src/k8s/client/index.ts";

const HELPER_KINDS = ["tinyflows", "tinyprojects", "tinywidgetpages", "tinyscenarios"];

function all(rules: ModuleRbacRules): PolicyRule[] {
  return [...rules.cluster, ...rules.leaderElection, ...rules.namespaced];
}

function verbsFor(rules: PolicyRule[], group: string, resource: string): string[] {
  return rules.filter((r) => r.apiGroups?.includes(group) && r.resources?.includes(resource)).flatMap((r) => r.verbs);
}

describe("moduleRbacRules", () => {
  test("grants leases for leader election in the namespaced Role", () => {
    expect(verbsFor(moduleRbacRules().leaderElection, "coordination.k8s.io", "leases")).toEqual(["get", "list", "watch", "create", "update", "patch", "delete"]);
  });

  test("grants what ExposePort does: pods get, services and ingresses get/list/update", () => {
    const rules = moduleRbacRules().namespaced;
    expect(verbsFor(rules, "", "pods")).toEqual(["get"]);
    expect(verbsFor(rules, "", "services")).toEqual(["get", "list", "update"]);
    expect(verbsFor(rules, "networking.k8s.io", "ingresses")).toEqual(["get", "list", "update"]);
  });

  test("grants the CR-helper kinds and node create/delete only with the flag", () => {
    const without = all(moduleRbacRules());
    for (const kind of HELPER_KINDS) expect(verbsFor(without, "operator.tinysystems.io", kind)).toEqual([]);
    expect(verbsFor(without, "operator.tinysystems.io", "tinynodes")).not.toContain("create");
    const withHelpers = all(moduleRbacRules({ withCrHelpers: true }));
    for (const kind of HELPER_KINDS) expect(verbsFor(withHelpers, "operator.tinysystems.io", kind)).toContain("create");
    expect(verbsFor(withHelpers, "operator.tinysystems.io", "tinynodes")).toEqual(expect.arrayContaining(["create", "delete"]));
  });

  test("never grants delete on TinyModules or access to secrets", () => {
    const rules = all(moduleRbacRules({ withCrHelpers: true }));
    expect(verbsFor(rules, "operator.tinysystems.io", "tinymodules")).not.toContain("delete");
    expect(verbsFor(rules, "", "secrets")).toEqual([]);
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

  test("prints the ClusterRole and Roles provision applies, for the given name and namespace", async () => {
    const docs = await print(["--name", "shop", "--namespace", "prod"]);
    expect(docs).toEqual(releaseRoles(resolveOptions({ name: "shop", namespace: "prod" })) as unknown[]);
    expect(docs.map((d) => `${(d as { kind: string }).kind}/${(d as { metadata: { name: string } }).metadata.name}`)).toEqual([
      "ClusterRole/shop-prod-manager-role",
      "Role/shop-leader-election-role",
      "Role/shop-extra",
    ]);
  });

  test("--with-cr-helpers adds the flow, project, page and scenario kinds", async () => {
    const text = JSON.stringify(await print(["--with-cr-helpers"]));
    for (const kind of HELPER_KINDS) expect(text).toContain(kind);
    const plain = JSON.stringify(await print([]));
    for (const kind of HELPER_KINDS) expect(plain).not.toContain(kind);
  });
});
