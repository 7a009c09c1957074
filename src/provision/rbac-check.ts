/**
 * `tinyhost tools rbac-check`: the Kubernetes calls a tinyhost module makes for its components that
 * the rules they declare do not cover (Go cli/rbac-check.go, rbaccheck.go). Go resolves
 * controller-runtime calls in a module's Go source; a tinyhost component has no client of its own,
 * so the calls made on its behalf are known without reading code:
 * - ExposePort/DisclosePort of a component with `onClient` — covered by construction, since
 *   `tools rbac-values` derives their rules (Go's check cannot see these SDK calls at all);
 * - `get` of each Secret a `[[secret:<name>/<key>]]` placeholder names — found in the components'
 *   `_settings` defaults and, with `--manifests <dir>`, in the TinyNode manifests' `_settings`
 *   configurations (the only port the runtime resolves them on) —
 *   covered when the name is in some component's `requirements.secrets.names` or a declared rule
 *   grants `get` on it (Go's wildcard rules apply: `*` group, resource or verb).
 * The declared rules are `extraRules` and `extraNamespacedRules` both (Go v0.13.131 reads only
 * `extraRules`, so a namespaced declaration is reported uncovered there; docs/compatibility.md).
 */
import type { PolicyRule } from "../k8s/client/index.ts";
import { parsePlaceholder } from "../runtime/secrets/index.ts";
import { SystemPort } from "../core/ports.ts";
import type { AnyPort } from "../core/ports.ts";
import type { NodeManifest } from "../local/manifests.ts";
import { secretReadRule, type ComponentNeeds } from "./rbac-values.ts";

/** One call the declared rules do not cover (Go `RBACFinding`). */
export interface RbacFinding {
  /** `group/resource`, or `resource` for the core group, as Go prints it; a pinned name follows in quotes. */
  resource: string;
  verb: string;
  /** Where the call comes from: `component <c> port <p> (default)` or `<file>:<line> node <name> port <p>`. */
  position: string;
}

/** A component as the check sees it. */
export interface CheckedComponent extends ComponentNeeds {
  ports: readonly AnyPort[];
}

/** The rules the components declared, flattened (secrets names as a pinned `get` rule). */
export function declaredRules(components: readonly ComponentNeeds[]): PolicyRule[] {
  const rules: PolicyRule[] = [];
  for (const c of components) {
    rules.push(...(c.requirements?.rbac?.extraRules ?? []), ...(c.requirements?.rbac?.extraNamespacedRules ?? []));
  }
  const secrets = secretReadRule(components);
  if (secrets) rules.push(secrets);
  return rules;
}

/** True when `rules` allow `verb` on `resource` in core/other `group`, object `name` (wildcards as RBAC and Go's `permits`). */
export function permits(rules: readonly PolicyRule[], group: string, resource: string, verb: string, name?: string): boolean {
  return rules.some(
    (r) =>
      (r.apiGroups ?? []).some((g) => g === group || g === "*") &&
      (r.resources ?? []).some((x) => x === resource || x === "*") &&
      r.verbs.some((v) => v === verb || v === "*") &&
      (!r.resourceNames || r.resourceNames.length === 0 || (name !== undefined && r.resourceNames.includes(name))),
  );
}

/** Every placeholder string in `value` (arrays and objects walked), in order. */
function placeholdersIn(value: unknown, into: string[] = [], depth = 0): string[] {
  if (typeof value === "string") {
    if (parsePlaceholder(value)) into.push(value);
  } else if (value !== null && typeof value === "object" && depth < 64) {
    for (const v of Array.isArray(value) ? value : Object.values(value)) placeholdersIn(v, into, depth + 1);
  }
  return into;
}

/**
 * The uncovered calls, one per resource and verb (the first place it is seen, as Go), sorted by
 * resource then verb.
 */
export function checkRbacCoverage(components: readonly CheckedComponent[], manifests: readonly NodeManifest[] = []): RbacFinding[] {
  const rules = declaredRules(components);
  const found = new Map<string, RbacFinding>();
  const need = (name: string, position: string) => {
    if (permits(rules, "", "secrets", "get", name)) return;
    const resource = `secrets "${name}"`;
    if (!found.has(resource)) found.set(resource, { resource, verb: "get", position });
  };
  // Only `_settings` is resolved (src/runtime/runner/runner.ts): a placeholder elsewhere is data.
  for (const c of components) {
    for (const p of c.ports)
      if (p.name === SystemPort.settings)
        for (const ph of placeholdersIn(p.configuration)) need(parsePlaceholder(ph)!.name, `component ${c.name} port ${p.name} (default)`);
  }
  for (const m of manifests) {
    for (const p of m.node.spec.ports ?? []) {
      if (!p.configuration || p.port !== SystemPort.settings) continue;
      let config: unknown;
      try {
        config = JSON.parse(Buffer.from(p.configuration, "base64").toString("utf8"));
      } catch {
        continue; // local mode reports an unreadable configuration itself
      }
      for (const ph of placeholdersIn(config)) need(parsePlaceholder(ph)!.name, `${m.file}:${m.line} node ${m.node.metadata.name} port ${p.port}`);
    }
  }
  return [...found.values()].sort((a, b) => (a.resource === b.resource ? a.verb.localeCompare(b.verb) : a.resource.localeCompare(b.resource)));
}

/** Go's report lines for `findings` (stderr), as cli/rbac-check.go prints them. */
export function rbacCheckReport(findings: readonly RbacFinding[]): string {
  const pad = (s: string, n: number) => (s.length >= n ? s : s + " ".repeat(n - s.length));
  return (
    `rbac-check: ${findings.length} call(s) not covered by the declared RBAC:\n` +
    findings.map((f) => `  ${pad(f.resource, 40)} needs ${pad(f.verb, 8)} first seen at ${f.position}\n`).join("") +
    `\nAdd the missing Secret names to the component's requirements.secrets.names (or rules to\nrequirements.rbac), then regenerate the overlay: tinyhost tools rbac-values\n`
  );
}

/** Go's line when every call is covered (stdout). */
export const RBAC_CHECK_OK = "rbac-check: every resolved Kubernetes call is covered by the declared rules";
