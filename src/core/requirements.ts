/**
 * What a component needs from the cluster beyond what the runtime's own RBAC grants (Go
 * module/requirements.go, `registry.SetRequirements`; namespaced rules since SDK v0.13.126). Go
 * declares them once per module; a tinyhost module is its components, so each declares its own and
 * `tools rbac-values` / `tools rbac-check` merge them (src/provision/rbac-values.ts, rbac-check.ts).
 */

/** One RBAC rule (Go `RBACRule`; `resourceNames` is ours: it pins a rule to named objects). */
export interface RequiredRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

/** What a component declares (`requirements` of `defineComponent`). JSON keys are Go's. */
export interface Requirements {
  rbac?: {
    /** The chart's read access to pods, services, deployments and ingresses (Go `EnableKubernetesResourceAccess`). */
    enableKubernetesResourceAccess?: boolean;
    /** Rules in every namespace: a ClusterRole (Go `ExtraRules`). Prefer `extraNamespacedRules`. */
    extraRules?: RequiredRule[];
    /** Rules in the module's namespace only: a Role (Go `ExtraNamespacedRules`, v0.13.126). */
    extraNamespacedRules?: RequiredRule[];
  };
  /** Secrets in the module's namespace that `[[secret:<name>/<key>]]` placeholders may name (Go `SecretRequirements`). */
  secrets?: { names: string[] };
  /** A persistent volume (Go `StorageRequirements`). tinyhost validates and lists it; neither the chart overlay nor `provision` creates one (docs/compatibility.md). */
  storage?: { enabled?: boolean; size?: string; storageClassName?: string };
  /**
   * Scaling (ours, not Go's): `keepRunning` says why a module with a node of this component
   * must keep at least one replica (it holds a listening server or a timer, which at zero replicas
   * nothing runs). `tools keda-values` and `provision --autoscale` refuse `min=0` for such a module.
   */
  scaling?: { keepRunning?: string };
}

const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

function strings(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((s) => typeof s === "string");
}

/** Kubernetes resource quantity (apimachinery `resource.Quantity`), e.g. `1Gi`, `500M`, `1.5Gi`. */
const QUANTITY = /^[0-9]+(\.[0-9]+)?([KMGTPE]i|[kMGTPE]|m|[eE][0-9]+)?$/;

/** The problem with an unknown key of `obj` at `at` (a misspelled key would silently drop what it carries). */
function unknownKey(obj: Record<string, unknown>, at: string, known: readonly string[]): string | undefined {
  const k = Object.keys(obj).find((key) => !known.includes(key));
  return k === undefined ? undefined : `${at} has an unknown key ${JSON.stringify(k)} (known: ${known.join(", ")})`;
}

function ruleProblem(r: unknown, at: string): string | undefined {
  if (r === null || typeof r !== "object") return `${at} must be an object, got ${JSON.stringify(r)}`;
  const rule = r as Record<string, unknown>;
  const unknown = unknownKey(rule, at, ["apiGroups", "resources", "verbs", "resourceNames"]);
  if (unknown) return unknown;
  for (const k of ["apiGroups", "resources", "verbs"] as const) {
    if (!strings(rule[k]) || (k !== "apiGroups" && (rule[k] as string[]).length === 0))
      return `${at}.${k} must be a${k === "apiGroups" ? "n" : " non-empty"} array of strings, got ${JSON.stringify(rule[k])}`;
  }
  if (rule.resourceNames !== undefined && !strings(rule.resourceNames))
    return `${at}.resourceNames must be an array of strings, got ${JSON.stringify(rule.resourceNames)}`;
  return undefined;
}

/**
 * The problem with `r` as {@link Requirements}, naming the field and value, or undefined when it is
 * well-formed (defineComponent throws it as InvalidComponentError).
 */
export function requirementsProblem(r: unknown): string | undefined {
  if (r === null || typeof r !== "object" || Array.isArray(r)) return `requirements must be an object, got ${JSON.stringify(r)}`;
  const req = r as Record<string, unknown>;
  const unknown = unknownKey(req, "requirements", ["rbac", "secrets", "storage", "scaling"]);
  if (unknown) return unknown;
  const rbac = req.rbac as Record<string, unknown> | undefined;
  if (rbac !== undefined) {
    if (rbac === null || typeof rbac !== "object") return `requirements.rbac must be an object, got ${JSON.stringify(rbac)}`;
    const u = unknownKey(rbac, "requirements.rbac", ["enableKubernetesResourceAccess", "extraRules", "extraNamespacedRules"]);
    if (u) return u;
    if (rbac.enableKubernetesResourceAccess !== undefined && typeof rbac.enableKubernetesResourceAccess !== "boolean")
      return `requirements.rbac.enableKubernetesResourceAccess must be a boolean, got ${JSON.stringify(rbac.enableKubernetesResourceAccess)}`;
    for (const k of ["extraRules", "extraNamespacedRules"] as const) {
      const list = rbac[k];
      if (list === undefined) continue;
      if (!Array.isArray(list)) return `requirements.rbac.${k} must be an array, got ${JSON.stringify(list)}`;
      for (let i = 0; i < list.length; i++) {
        const p = ruleProblem(list[i], `requirements.rbac.${k}[${i}]`);
        if (p) return p;
      }
    }
  }
  const secrets = req.secrets as Record<string, unknown> | undefined;
  if (secrets !== undefined) {
    if (secrets === null || typeof secrets !== "object" || !strings(secrets.names))
      return `requirements.secrets.names must be an array of Secret names, got ${JSON.stringify(secrets === null || typeof secrets !== "object" ? secrets : secrets.names)}`;
    const u = unknownKey(secrets, "requirements.secrets", ["names"]);
    if (u) return u;
    const bad = secrets.names.find((n) => !NAME.test(n) || n.length > 253);
    if (bad !== undefined) return `requirements.secrets.names: ${JSON.stringify(bad)} is not a Secret name (lower-case letters, digits, '-' and '.')`;
  }
  const storage = req.storage as Record<string, unknown> | undefined;
  if (storage !== undefined) {
    if (storage === null || typeof storage !== "object") return `requirements.storage must be an object, got ${JSON.stringify(storage)}`;
    const u = unknownKey(storage, "requirements.storage", ["enabled", "size", "storageClassName"]);
    if (u) return u;
    if (storage.enabled !== undefined && typeof storage.enabled !== "boolean")
      return `requirements.storage.enabled must be a boolean, got ${JSON.stringify(storage.enabled)}`;
    for (const k of ["size", "storageClassName"] as const)
      if (storage[k] !== undefined && typeof storage[k] !== "string") return `requirements.storage.${k} must be a string, got ${JSON.stringify(storage[k])}`;
    if (typeof storage.size === "string" && storage.size !== "" && !QUANTITY.test(storage.size))
      return `requirements.storage.size must be a Kubernetes quantity such as "1Gi", got ${JSON.stringify(storage.size)}`;
  }
  const scaling = req.scaling as Record<string, unknown> | undefined;
  if (scaling !== undefined) {
    if (scaling === null || typeof scaling !== "object") return `requirements.scaling must be an object, got ${JSON.stringify(scaling)}`;
    const u = unknownKey(scaling, "requirements.scaling", ["keepRunning"]);
    if (u) return u;
    if (scaling.keepRunning !== undefined && (typeof scaling.keepRunning !== "string" || scaling.keepRunning.trim() === ""))
      return `requirements.scaling.keepRunning must be a non-empty string (why the module must keep a replica), got ${JSON.stringify(scaling.keepRunning)}`;
  }
  return undefined;
}

/** Deep copy of `r`, frozen (a definition's requirements cannot change after defineComponent). */
export function frozenRequirements(r: Requirements): Readonly<Requirements> {
  const deep = <T>(v: T): T => {
    if (v !== null && typeof v === "object") {
      for (const k of Object.keys(v)) deep((v as Record<string, unknown>)[k]);
      return Object.freeze(v);
    }
    return v;
  };
  return deep(structuredClone(r));
}
