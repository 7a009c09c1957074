/**
 * Requirements in defineComponent (Go module/requirements.go) flowing into `tools rbac-values`
 * (Go cli/rbac-values.go, namespaced rules since v0.13.126) and `tools rbac-check` (Go
 * cli/rbac-check.go: its lines and exit codes); `tools components-info` as Go's
 * (cli/components-info.go, validate.go).
 */
import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import YAML from "yaml";
import { defineComponent, target, Type, source } from "tinyhost";
import { BUN } from "../../support/bun-test.ts";
import { errorPortWarnings } from "../../../src/cli/error-ports.ts";

const ROOT = resolve(import.meta.dir, "../../..");
const DIR = "test/fixtures/requirements-components";

async function tools(...args: string[]) {
  const p = Bun.spawn([BUN, "src/cli/main.ts", "tools", ...args], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, TINYHOST_LOG_LEVEL: "silent" },
  });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { out, err, code };
}

describe("requirements in defineComponent", () => {
  test("a malformed declaration fails the definition, naming the field and value", () => {
    const base = { info: { name: "x", description: "X", info: "" }, ports: () => [target("in", Type.Object({}))], handle: () => undefined };
    expect(() => defineComponent({ ...base, requirements: { secrets: { names: ["Bad_Name"] } } })).toThrow(
      'component x: requirements.secrets.names: "Bad_Name" is not a Secret name',
    );
    expect(() => defineComponent({ ...base, requirements: { rbac: { extraRules: [{ apiGroups: [""], resources: [], verbs: ["get"] }] } } })).toThrow(
      "component x: requirements.rbac.extraRules[0].resources must be a non-empty array of strings, got []",
    );
    // A misspelled key would otherwise drop the rule it carries without a word.
    const bad = (requirements: unknown) => () => defineComponent({ ...base, requirements } as never);
    expect(bad({ secret: { names: ["a"] } })).toThrow('component x: requirements has an unknown key "secret" (known: rbac, secrets, storage, scaling)');
    expect(bad({ rbac: { extraNamespaceRules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }] } })).toThrow(
      'component x: requirements.rbac has an unknown key "extraNamespaceRules" (known: enableKubernetesResourceAccess, extraRules, extraNamespacedRules)',
    );
    expect(bad({ rbac: { extraNamespacedRules: [{ apiGroups: [""], resources: ["secrets"], verbs: ["get"], resourceName: ["a"] }] } })).toThrow(
      'component x: requirements.rbac.extraNamespacedRules[0] has an unknown key "resourceName" (known: apiGroups, resources, verbs, resourceNames)',
    );
    // …and so would a misspelled key of the spec itself, which holds them.
    expect(() => defineComponent({ ...base, requirments: { secrets: { names: ["a"] } } } as never)).toThrow(
      'component x: unknown key "requirments" (known: info, state, ports, handle, onIdentity,',
    );
    expect(bad({ secrets: { names: ["a"], name: "b" } })).toThrow('component x: requirements.secrets has an unknown key "name" (known: names)');
    expect(bad({ storage: { enabled: true, size: "lots" } })).toThrow(
      'component x: requirements.storage.size must be a Kubernetes quantity such as "1Gi", got "lots"',
    );
    expect(bad({ storage: { enabled: true, size: "10Gi", class: "fast" } })).toThrow(
      'component x: requirements.storage has an unknown key "class" (known: enabled, size, storageClassName)',
    );
    expect(defineComponent({ ...base, requirements: { storage: { enabled: true, size: "1.5Gi" } } }).requirements).toEqual({
      storage: { enabled: true, size: "1.5Gi" },
    });
    const d = defineComponent({ ...base, requirements: { secrets: { names: ["a"] } } });
    expect(d.requirements).toEqual({ secrets: { names: ["a"] } });
    expect(Object.isFrozen(d.requirements!.secrets!.names)).toBe(true);
  });
});

describe("tools rbac-values", () => {
  test("Go's overlay keys in Go's order: base access, cluster rules, namespaced rules with the named Secrets pinned to get", async () => {
    const r = await tools("rbac-values", "--dir", DIR);
    expect(r.code).toBe(0);
    expect(Object.keys(YAML.parse(r.out).rbac)).toEqual(["enableKubernetesResourceAccess", "extraRules", "extraNamespacedRules"]);
    expect(YAML.parse(r.out)).toEqual({
      rbac: {
        enableKubernetesResourceAccess: true,
        extraRules: [{ apiGroups: ["batch"], resources: ["jobs"], verbs: ["create"] }],
        extraNamespacedRules: [
          { apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] },
          { apiGroups: [""], resources: ["secrets"], verbs: ["get"], resourceNames: ["api-creds"] },
        ],
      },
    });
  });
});

describe("tools rbac-check", () => {
  test("an uncovered Secret is reported in Go's words on stderr, exit 0; --strict exits 1", async () => {
    const r = await tools("rbac-check", "--dir", DIR);
    expect(r.code).toBe(0);
    expect(r.out).toBe("");
    expect(r.err.split("\n").slice(0, 2)).toEqual([
      "rbac-check: 1 call(s) not covered by the declared RBAC:",
      `  ${'secrets "undeclared"'.padEnd(40)} needs get      first seen at component vault_reader port _settings (default)`,
    ]);
    expect((await tools("rbac-check", "--strict", "--dir", DIR)).code).toBe(1);
  });

  test("--manifests adds the placeholders of the flows' settings, with file and line; a data port's mapping is data", async () => {
    const r = await tools("rbac-check", "--dir", DIR, "--manifests", "test/fixtures/requirements-manifests");
    expect(r.err).toContain("rbac-check: 2 call(s) not covered by the declared RBAC:");
    expect(r.err).not.toContain("edge-data");
    expect(r.err).toMatch(
      /secrets "flow-only" +needs get +first seen at test\/fixtures\/requirements-manifests\/node\.yaml:1 node a1b2c3d4\.tinyhost\.vault_reader-0a1b2 port _settings/,
    );
  });

  test("everything covered: Go's line on stdout, exit 0; a missing manifests directory exits 1", async () => {
    const r = await tools("rbac-check");
    expect({ code: r.code, out: r.out.trim() }).toEqual({ code: 0, out: "rbac-check: every resolved Kubernetes call is covered by the declared rules" });
    const bad = await tools("rbac-check", "--manifests", "no/such/dir");
    expect({ code: bad.code, err: bad.err.trim() }).toEqual({ code: 1, err: "rbac-check: manifests directory not found: no/such/dir" });
  });
});

describe("tools components-info", () => {
  test("--json lists agent tools with agent_tool and their tool description, http_server with sync_rpc, in registration order", async () => {
    const r = await tools("components-info", "--json");
    expect(r.code).toBe(0);
    const list = JSON.parse(r.out) as { name: string; info?: string; tags?: string[] }[];
    expect(list.find((c) => c.name === "http_server")?.tags).toEqual(["HTTP", "Server", "sync_rpc"]);
    expect(list.find((c) => c.name === "array_get")?.tags).toContain("agent_tool");
    expect(list.map((c) => c.name)).toEqual([...list.map((c) => c.name)].sort()); // the bundled registry registers by name
  });

  test("without --json, Go's warning for an error port lacking the ErrorMessage fields", async () => {
    const r = await tools("components-info", "--dir", DIR);
    expect(r.err.trim()).toBe(
      'warning: component "vault_reader" error port is missing [context retryable] — emit module.NewError(ctx, err) (module.ErrorMessage) so the retry component and the platform can supervise it; wrap transient failures with module.Retryable',
    );
    const ok = defineComponent({
      info: { name: "ok", description: "", info: "" },
      ports: () => [source("error", Type.Object({ context: Type.Any(), error: Type.String(), retryable: Type.Boolean() }))],
      handle: () => undefined,
    });
    expect(errorPortWarnings([ok])).toEqual([]);
  });
});
