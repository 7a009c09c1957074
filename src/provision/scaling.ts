/**
 * Scaling as configuration (docs/operations.md "Scaling"): a module's autoscaling policy
 * — min/max replicas, the lag per replica KEDA aims at, the lag that wakes a module at zero, KEDA's
 * polling and cooldown — validated here, and the KEDA objects it becomes: a ScaledObject with one
 * `nats-jetstream` trigger on the module's business consumer `<module>` of stream `module-edges`
 * (KEDA reads `num_pending + num_ack_pending` from the broker's monitoring endpoint `/jsz`), plus a
 * TriggerAuthentication when the endpoint and account come from a Secret. tinyhost writes no
 * autoscaler of its own.
 *
 * KEDA's scaler facts this relies on (keda.sh/docs/scalers/nats-jetstream; kedacore/keda #7657,
 * #3564): a consumer the scaler cannot find is a scaler error in v2.21.0 (scripts/build-keda.sh; it used to jump to max
 * replicas), so the ScaledObject carries a `fallback`; in a NATS cluster only the consumer leader's
 * numbers are right, and the scaler finds the leader by querying `<server>.<endpoint host>` — which
 * is why the endpoint is the broker's headless Service (`<pod>.<headless>` resolves).
 */
import { sanitizeResourceName } from "../core/api/index.ts";
import { moduleOfNode } from "../core/hop.ts";
import { DEFAULT_MAX_CONCURRENT_HOPS } from "../transport/slots.ts";
import { EDGE_STREAM } from "../transport/nats/names.ts";
import { defineResource, isNotFound, type GenericObject, type KubeClient } from "../k8s/client/index.ts";
import { NATS_NAME } from "./broker-url.ts";
import { KedaMissingError, ProvisionInputError } from "./errors.ts";
import { commonLabels } from "./labels.ts";
import type { Manifest, ManifestObject } from "./manifest.ts";
import { NATS_MONITOR_PORT } from "./nats.ts";

/** keda.sh/v1alpha1 ScaledObjects (KEDA's CRD). */
export const scaledObjects = defineResource<GenericObject>({
  group: "keda.sh",
  version: "v1alpha1",
  plural: "scaledobjects",
  namespaced: true,
  kind: "ScaledObject",
});
/** keda.sh/v1alpha1 TriggerAuthentications (KEDA's CRD). */
export const triggerAuthentications = defineResource<GenericObject>({
  group: "keda.sh",
  version: "v1alpha1",
  plural: "triggerauthentications",
  namespaced: true,
  kind: "TriggerAuthentication",
});

/** NATS's account name when no accounts are configured (the provisioned broker: token auth only). */
export const NATS_DEFAULT_ACCOUNT = "$G";

/** The defaults of a policy (`--autoscale on`). */
export const AUTOSCALE_DEFAULTS = {
  /** Scale to zero when idle. */
  min: 0,
  max: 10,
  /**
   * Lag (pending + unacknowledged hops) per replica KEDA aims at: the hop slots one pod runs at once
   * ({@link DEFAULT_MAX_CONCURRENT_HOPS}), so desired replicas ≈ backlog ÷ a pod's slots.
   */
  lag: DEFAULT_MAX_CONCURRENT_HOPS,
  /** Any waiting hop wakes a module at zero (KEDA activates when lag > this). */
  activation: 0,
  /** Seconds between KEDA's reads of the lag (KEDA's default 30; shorter = faster cold start). */
  polling: 10,
  /** Seconds of zero lag before the last replica goes (KEDA's default). */
  cooldown: 300,
} as const;

/** The keys of an `--autoscale` spec, each an integer. */
export const AUTOSCALE_KEYS = ["min", "max", "lag", "activation", "polling", "cooldown"] as const;
/** One key of an `--autoscale` spec. */
export type AutoscaleKey = (typeof AUTOSCALE_KEYS)[number];
/** A policy as given: any key may be missing (its default applies). */
export type AutoscaleInput = Partial<Record<AutoscaleKey, number>>;

/** A validated policy. */
export interface Autoscale {
  minReplicas: number;
  maxReplicas: number;
  /** KEDA `lagThreshold`: the lag per replica aimed at. */
  lagThreshold: number;
  /** KEDA `activationLagThreshold`: the module at zero starts when the lag is above it. */
  activationLagThreshold: number;
  /** KEDA `pollingInterval`, s. */
  pollingIntervalSeconds: number;
  /** KEDA `cooldownPeriod`, s. */
  cooldownPeriodSeconds: number;
}

/** Form of an `--autoscale` value, for messages. */
export const AUTOSCALE_FORM = `"on", "off" or comma-separated key=integer pairs of ${AUTOSCALE_KEYS.join(", ")} (e.g. "min=0,max=5,lag=100")`;

/** The `--autoscale` values that mean no autoscaling (a fixed single replica), as if the flag were absent. */
export const AUTOSCALE_OFF: readonly string[] = ["off", "none"];

/** True when `spec` is one of {@link AUTOSCALE_OFF} (case and spaces ignored). */
export function isAutoscaleOff(spec: string): boolean {
  return AUTOSCALE_OFF.includes(spec.trim().toLowerCase());
}

/** The least value of each key: 0 where zero means something (no floor, wake on any lag, no cooldown), else 1. */
const AUTOSCALE_LEAST: Readonly<Record<AutoscaleKey, 0 | 1>> = { min: 0, max: 1, lag: 1, activation: 0, polling: 1, cooldown: 0 };

/** "a positive integer" or "a non-negative integer", as key `k` allows. */
function integerKind(k: AutoscaleKey): string {
  return AUTOSCALE_LEAST[k] === 1 ? "a positive integer" : "a non-negative integer";
}

/**
 * Parses an `--autoscale` value: `on` (all defaults) or `key=value,…` with keys of {@link AUTOSCALE_KEYS}.
 * `off`/`none` are the caller's to handle ({@link isAutoscaleOff}): there is no policy to parse.
 * @param flag - the flag name for messages.
 * @throws ProvisionInputError naming the flag, the key and the value: unknown key, repeated key, not a decimal integer, `off`/`none`.
 */
export function parseAutoscaleSpec(spec: string, flag = "--autoscale"): AutoscaleInput {
  const text = spec.trim();
  if (text === "on" || text === "") return {};
  if (isAutoscaleOff(text)) throw new ProvisionInputError(flag, `${JSON.stringify(spec)} means no autoscaling: there is no policy to read here`);
  const out: AutoscaleInput = {};
  for (const part of text.split(",")) {
    const eq = part.indexOf("=");
    const key = (eq < 0 ? part : part.slice(0, eq)).trim();
    const raw = eq < 0 ? "" : part.slice(eq + 1).trim();
    if (!(AUTOSCALE_KEYS as readonly string[]).includes(key)) {
      throw new ProvisionInputError(flag, `unknown key ${JSON.stringify(key)} in ${JSON.stringify(spec)}; expected ${AUTOSCALE_FORM}`);
    }
    const k = key as AutoscaleKey;
    if (out[k] !== undefined) throw new ProvisionInputError(flag, `key ${k} is given twice in ${JSON.stringify(spec)}`);
    if (!/^\d+$/.test(raw)) throw new ProvisionInputError(flag, `${k} must be ${integerKind(k)}, got ${JSON.stringify(raw)}`);
    out[k] = Number(raw);
  }
  return out;
}

/**
 * Completes and checks a policy.
 * @throws ProvisionInputError (`flag`) naming the key and value: max < 1, max < min, lag < 1,
 *   polling < 1, a value not a safe integer, or above 1000 replicas.
 */
export function resolveAutoscale(input: AutoscaleInput, flag = "--autoscale"): Autoscale {
  const v = { ...AUTOSCALE_DEFAULTS, ...input };
  for (const k of AUTOSCALE_KEYS) {
    if (!Number.isSafeInteger(v[k]) || v[k] < 0) throw new ProvisionInputError(flag, `${k} must be ${integerKind(k)}, got ${JSON.stringify(v[k])}`);
  }
  if (v.max < 1) throw new ProvisionInputError(flag, `max must be at least 1, got ${v.max}`);
  if (v.max > 1000) throw new ProvisionInputError(flag, `max must be at most 1000, got ${v.max}`);
  if (v.min > v.max) throw new ProvisionInputError(flag, `min (${v.min}) must not exceed max (${v.max})`);
  if (v.lag < 1) throw new ProvisionInputError(flag, `lag must be at least 1 (hops per replica), got ${v.lag}`);
  if (v.polling < 1) throw new ProvisionInputError(flag, `polling must be at least 1 second, got ${v.polling}`);
  return {
    minReplicas: v.min,
    maxReplicas: v.max,
    lagThreshold: v.lag,
    activationLagThreshold: v.activation,
    pollingIntervalSeconds: v.polling,
    cooldownPeriodSeconds: v.cooldown,
  };
}

/** A component that keeps its module running (declared in `requirements.scaling.keepRunning`). */
export interface KeepRunningComponent {
  /** Component name (e.g. `ticker`). */
  name: string;
  /** Why, as the component declares it. */
  why: string;
}

/** A node of a flow, as far as the scale-to-zero check reads it. */
export interface ScalingNode {
  /** TinyNode name. */
  name: string;
  /** Its component name (without the module prefix). */
  component: string;
}

/** The components of `needs` that declare `requirements.scaling.keepRunning`, with their reason. */
export function keepRunningComponents(needs: readonly { name: string; requirements?: { scaling?: { keepRunning?: string } } }[]): KeepRunningComponent[] {
  return needs.flatMap((n) => (n.requirements?.scaling?.keepRunning ? [{ name: n.name, why: n.requirements.scaling.keepRunning }] : []));
}

/**
 * The nodes module `module` serves among TinyNodes — the module is the second dot segment of the
 * node name (runtime-spec §16 item 1), compared with the SDK-sanitized module name — for {@link checkScaleToZero}.
 */
export function moduleNodes(nodes: readonly { metadata: { name?: string }; spec?: { component?: string } }[], module: string): ScalingNode[] {
  const want = sanitizeResourceName(module);
  return nodes.flatMap((n) => {
    const name = n.metadata.name ?? "";
    return moduleOfNode(name) === want && n.spec?.component ? [{ name, component: n.spec.component }] : [];
  });
}

/** `min=0` asked for a module one of whose nodes must keep running; the message names node, component and why. */
export class ScaleToZeroRefusedError extends ProvisionInputError {}

/**
 * The scale-to-zero check: a module holding a server or a timer (a node of a component declaring
 * `requirements.scaling.keepRunning`: http_server, ticker, cron) must keep at least one replica —
 * at zero nothing listens and nothing ticks, and no backlog would ever wake it.
 * @param nodes - the module's nodes when known (`--manifests`); absent = unknown.
 * @returns warnings to print when the nodes are unknown and min is 0 (the components that would forbid it).
 * @throws ScaleToZeroRefusedError when min is 0 and a known node is of such a component.
 */
export function checkScaleToZero(a: Autoscale, keepRunning: readonly KeepRunningComponent[], nodes?: readonly ScalingNode[], flag = "--autoscale"): string[] {
  if (a.minReplicas > 0 || keepRunning.length === 0) return [];
  if (nodes === undefined) {
    return [
      `min=0: a module scaled to zero runs nothing until a hop arrives; nodes of ${keepRunning.map((c) => c.name).join(", ")} must not be in its flows ` +
        `(${keepRunning.map((c) => `${c.name}: ${c.why}`).join("; ")}). Pass the flows' manifests to check, or min=1.`,
    ];
  }
  const why = new Map(keepRunning.map((c) => [c.name, c.why]));
  const holding = nodes.filter((n) => why.has(n.component));
  if (holding.length === 0) return [];
  const list = holding.map((n) => `node ${n.name} (${n.component}: ${why.get(n.component)})`).join("; ");
  throw new ScaleToZeroRefusedError(
    flag,
    `min=0 refused: ${list}. A module at zero replicas runs none of them; use min=1 (it still scales out on its backlog).`,
  );
}

/** Where KEDA reads the broker's `/jsz`: the headless Service of the provisioned broker, monitoring port. */
export function brokerMonitoringEndpoint(namespace: string): string {
  return `${NATS_NAME}-headless.${namespace}.svc:${NATS_MONITOR_PORT}`;
}

/** What the KEDA objects of one module are made of. */
export interface KedaTarget {
  namespace: string;
  /** The release name R (the objects are named after it). */
  release: string;
  /** The module name as `run --name` gets it; the consumer is its SDK-sanitized form. */
  module: string;
  /** Name of the Deployment KEDA scales. */
  deployment: string;
  /** Broker monitoring endpoint `host:port`; default {@link brokerMonitoringEndpoint}. */
  endpoint?: string;
  /** NATS account; default {@link NATS_DEFAULT_ACCOUNT}. */
  account?: string;
  /**
   * A Secret holding `natsServerMonitoringEndpoint` (and optionally `account`): the trigger reads them
   * through a TriggerAuthentication instead of the ScaledObject (KEDA's scaler has no other credentials).
   */
  authSecret?: string;
}

/** Name of the ScaledObject (and TriggerAuthentication) of release R. */
export function kedaObjectName(release: string): string {
  return `${release}-scaler`;
}

/**
 * The ScaledObject: the Deployment between min and max replicas on the lag of consumer `<module>`.
 * `fallback` keeps max(min, 1) replicas after 3 failed reads (broker down, consumer missing), so
 * a module never sits at zero because its lag could not be read.
 */
export function scaledObject(t: KedaTarget, a: Autoscale): ManifestObject {
  const name = kedaObjectName(t.release);
  const metadata: Record<string, string> = {
    stream: EDGE_STREAM,
    consumer: sanitizeResourceName(t.module),
    lagThreshold: String(a.lagThreshold),
    activationLagThreshold: String(a.activationLagThreshold),
  };
  if (t.authSecret === undefined) {
    metadata.natsServerMonitoringEndpoint = t.endpoint ?? brokerMonitoringEndpoint(t.namespace);
    metadata.account = t.account ?? NATS_DEFAULT_ACCOUNT;
  }
  return {
    apiVersion: "keda.sh/v1alpha1",
    kind: "ScaledObject",
    metadata: { name, namespace: t.namespace, labels: commonLabels(t.release) },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: t.deployment },
      pollingInterval: a.pollingIntervalSeconds,
      cooldownPeriod: a.cooldownPeriodSeconds,
      minReplicaCount: a.minReplicas,
      maxReplicaCount: a.maxReplicas,
      fallback: { failureThreshold: 3, replicas: Math.max(a.minReplicas, 1) },
      triggers: [
        {
          type: "nats-jetstream",
          metadata,
          ...(t.authSecret !== undefined ? { authenticationRef: { name } } : {}),
        },
      ],
    },
  };
}

/** The TriggerAuthentication reading endpoint and account from Secret `t.authSecret`; undefined without one. */
export function triggerAuthentication(t: KedaTarget): ManifestObject | undefined {
  if (t.authSecret === undefined) return undefined;
  const name = kedaObjectName(t.release);
  return {
    apiVersion: "keda.sh/v1alpha1",
    kind: "TriggerAuthentication",
    metadata: { name, namespace: t.namespace, labels: commonLabels(t.release) },
    spec: {
      secretTargetRef: [
        { parameter: "natsServerMonitoringEndpoint", name: t.authSecret, key: "natsServerMonitoringEndpoint" },
        { parameter: "account", name: t.authSecret, key: "account" },
      ],
    },
  };
}

/** The KEDA manifests of one module, TriggerAuthentication first (the ScaledObject refers to it). */
export function kedaManifests(t: KedaTarget, a: Autoscale): Manifest[] {
  const auth = triggerAuthentication(t);
  return [
    ...(auth ? [{ resource: triggerAuthentications, policy: "apply-force" as const, object: auth }] : []),
    { resource: scaledObjects, policy: "apply-force", object: scaledObject(t, a) },
  ];
}

/**
 * Discovery of KEDA's API (`GET /apis/keda.sh/v1alpha1`): the ScaledObject resource, and the
 * TriggerAuthentication one when `withAuth`. Run before anything is applied, so a cluster without
 * KEDA is refused whole instead of failing on the last object.
 * @throws KedaMissingError naming the missing resource; KubeApiError other than NotFound, KubeConnectionError.
 */
export async function checkKedaInstalled(kube: KubeClient, withAuth = false): Promise<void> {
  let served: { resources?: { name?: string }[] };
  try {
    served = await kube.request({ method: "GET", path: `/apis/${scaledObjects.group}/${scaledObjects.version}` });
  } catch (e) {
    if (isNotFound(e)) throw new KedaMissingError(`${scaledObjects.plural}.${scaledObjects.group}`);
    throw e;
  }
  const names = new Set((served?.resources ?? []).map((r) => r.name));
  for (const r of withAuth ? [scaledObjects, triggerAuthentications] : [scaledObjects]) {
    if (!names.has(r.plural)) throw new KedaMissingError(`${r.plural}.${r.group}`);
  }
}
