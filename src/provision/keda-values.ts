/**
 * `tools keda-values`: scaling for a module installed with the platform's tinysystems-operator chart
 * (the Go SDK's, which runs `replicas: 1` and has no autoscaling of its own). Two outputs:
 * - the KEDA objects (src/provision/scaling.ts) for `kubectl apply -f -`, aimed at the chart's
 *   Deployment `<fullname>-controller-manager` and consumer `<moduleName | fullname>`;
 * - a values overlay: the pre-install hook's `installArgs` with `--nats-url` (the hook then creates
 *   the stream and the business consumer before the first pod, src/provision/hooks/broker-prepare.ts)
 *   and `controllerManager.replicas` at max(min, 1) (Helm's three-way merge leaves a live count KEDA
 *   set alone while this value does not change).
 * Names follow the chart's `_helpers.tpl` ("tinysystems-operator.fullname").
 */
import { kedaManifests, type Autoscale, type KedaTarget } from "./scaling.ts";
import type { Manifest } from "./manifest.ts";

/** The chart's name (its `fullname` appends it to a release name that does not contain it). */
export const OPERATOR_CHART = "tinysystems-operator";

/** The chart's `fullname` for release `release` (no `fullnameOverride`/`nameOverride`): the release when it contains the chart name, else `<release>-tinysystems-operator`, cut to 63. */
export function chartFullname(release: string): string {
  const full = release.includes(OPERATOR_CHART) ? release : `${release}-${OPERATOR_CHART}`;
  return full.slice(0, 63).replace(/-+$/, "");
}

/** What the chart was (or will be) installed with. */
export interface ChartRelease {
  /** Helm release name. */
  release: string;
  /** Release namespace. */
  namespace: string;
  /** `controllerManager.manager.moduleName`, when set; default the fullname (as the chart's `--name`). */
  moduleName?: string;
  /** The chart's `natsURL` (the hook prepares this broker); absent = the hook only checks the namespace. */
  natsUrl?: string;
  /** Broker monitoring endpoint KEDA reads (`host:port`); absent = the provisioned broker's. */
  endpoint?: string;
  /** Secret for a TriggerAuthentication. */
  authSecret?: string;
}

/** The KEDA target of a chart release. */
export function chartKedaTarget(c: ChartRelease): KedaTarget {
  const fullname = chartFullname(c.release);
  return {
    namespace: c.namespace,
    release: fullname,
    module: c.moduleName ?? fullname,
    deployment: `${fullname}-controller-manager`,
    ...(c.endpoint ? { endpoint: c.endpoint } : {}),
    ...(c.authSecret ? { authSecret: c.authSecret } : {}),
  };
}

/** The KEDA objects for a chart release (TriggerAuthentication first when there is one). */
export function chartKedaManifests(c: ChartRelease, a: Autoscale): Manifest[] {
  return kedaManifests(chartKedaTarget(c), a);
}

/** The chart values overlay (see the file header). */
export function chartKedaValues(c: ChartRelease, a: Autoscale): Record<string, unknown> {
  const fullname = chartFullname(c.release);
  const installArgs = ["pre-install", `--name=${c.moduleName ?? fullname}`, ...(c.natsUrl ? [`--nats-url=${c.natsUrl}`] : [])];
  return { controllerManager: { replicas: Math.max(a.minReplicas, 1), manager: { installArgs } } };
}
