/**
 * `tools keda-values`: scaling for a module installed with the platform's tinysystems-operator chart
 * (the Go SDK's, which runs `replicas: 1` and has no autoscaling of its own). Two outputs:
 * - the KEDA objects (src/provision/scaling.ts) for `kubectl apply -f -`, aimed at the chart's
 *   Deployment `<fullname>-controller-manager` and consumer `<moduleName | fullname>`;
 * - a values overlay: `controllerManager.replicas` at max(min, 1), the module's env in
 *   `controllerManager.manager.extraEnv` (`TINY_NATS_TRANSPORT=jetstream` — on core NATS the module
 *   never pulls the durable consumer KEDA reads —, `TINYHOST_AUTOSCALE_MIN`, and the chart's own
 *   `OTLP_DSN`, since Helm replaces a list whole), and the broker:
 *   - `--nats-url` without credentials: `natsURL` and the pre-install hook's `installArgs` get it,
 *     so the hook creates the stream and the business consumer before the first pod
 *     (src/provision/hooks/broker-prepare.ts);
 *   - with a token Secret: the token never enters the values. `extraEnv` reads it with
 *     `secretKeyRef` into `NATS_TOKEN` and sets `TINY_NATS_URL=nats://$(NATS_TOKEN)@…` (the kubelet
 *     expands it, as provision's Deployment does), `natsURL` is emptied so the chart does not set a
 *     second `TINY_NATS_URL`; the hook gets no URL (its Job's env is fixed by the chart: nothing
 *     could carry the Secret to it), and the first pod — replicas start at 1 — creates the stream
 *     and the consumer, which outlive it (no inactivity threshold).
 * Helm's upgrade writes `replicas` back to the overlay's value (docs/operations.md §15).
 * Names follow the chart's `_helpers.tpl` ("tinysystems-operator.fullname").
 */
import { kedaManifests, type Autoscale, type KedaTarget } from "./scaling.ts";
import type { Manifest } from "./manifest.ts";
import { ProvisionInputError } from "./errors.ts";
import { NATS_TOKEN_ENV, OTLP_DSN, type EnvVar } from "./release.ts";
import { NATS_TOKEN_KEY } from "./broker-url.ts";
import { ENV_AUTOSCALE_MIN } from "../operator/scale-to-zero.ts";
import { ENV_NATS_TRANSPORT } from "../transport/select.ts";

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
  /** The broker URL without credentials ({@link checkChartNatsUrl}); absent = the values' own `natsURL` stays, the hook only checks the namespace. */
  natsUrl?: string;
  /** The Secret (and key) holding the broker token ({@link parseTokenSecret}); needs {@link natsUrl}. */
  natsTokenSecret?: { name: string; key: string };
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

/** The broker credentials in a URL (`nats://token@…`, `nats://user:pass@…`), for refusing them. */
const URL_CREDENTIALS = /^[a-z]+:\/\/[^@/,]+@/i;

/**
 * `--nats-url` for the overlay: a broker URL (or a comma-separated list) without credentials — a
 * token in it would be written into the Helm values and the hook Job's args.
 * @throws ProvisionInputError (`--nats-url`, the value redacted) when a URL carries credentials or is not `scheme://host:port`.
 */
export function checkChartNatsUrl(url: string): string {
  for (const part of url.split(",")) {
    const u = part.trim();
    if (URL_CREDENTIALS.test(u)) {
      throw new ProvisionInputError(
        "--nats-url",
        `${JSON.stringify(u.replace(/\/\/[^@/]*@/, "//***@"))} carries credentials, which would be written into the Helm values and the pre-install Job's args: ` +
          `give the URL without them and the Secret holding the token with --nats-token-secret <secret>[/<key>]`,
      );
    }
    if (!/^[a-z]+:\/\/[A-Za-z0-9.-]+:\d{1,5}$/i.test(u))
      // A query or fragment may hold a token (`?token=…`): quoted masked, like userinfo above.
      throw new ProvisionInputError(
        "--nats-url",
        `must be scheme://host:port (e.g. nats://nats.nats.svc:4222), got ${JSON.stringify(u.replace(/[?#].*$/s, "?***"))}`,
      );
  }
  return url;
}

/**
 * `--nats-token-secret <secret>[/<key>]` (key default `token`, as the provisioned broker's Secret).
 * @throws ProvisionInputError (`--nats-token-secret`) quoting the value when the name is not a Secret name or the key is empty or not a Secret key.
 */
export function parseTokenSecret(spec: string): { name: string; key: string } {
  const slash = spec.indexOf("/");
  const name = slash < 0 ? spec : spec.slice(0, slash);
  const key = slash < 0 ? NATS_TOKEN_KEY : spec.slice(slash + 1);
  if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name) || name.length > 253 || !/^[-._A-Za-z0-9]+$/.test(key)) {
    throw new ProvisionInputError(
      "--nats-token-secret",
      `must be <secret>[/<key>] (a Secret name, a key of it; default key ${NATS_TOKEN_KEY}), got ${JSON.stringify(spec)}`,
    );
  }
  return { name, key };
}

/** Each URL of a list with `$(NATS_TOKEN)@` after its scheme (the kubelet expands it from the Secret). */
function withTokenReference(url: string): string {
  return url
    .split(",")
    .map((u) => u.trim().replace(/^([a-z]+:\/\/)/i, `$1$(${NATS_TOKEN_ENV})@`))
    .join(",");
}

/** The overlay's `extraEnv` (see the file header): the chart's default first, then ours, the token reference last. */
export function chartExtraEnv(c: ChartRelease, a: Autoscale): EnvVar[] {
  const env: EnvVar[] = [
    { name: "OTLP_DSN", value: OTLP_DSN },
    { name: ENV_NATS_TRANSPORT, value: "jetstream" },
    { name: ENV_AUTOSCALE_MIN, value: String(a.minReplicas) },
  ];
  if (c.natsUrl !== undefined && c.natsTokenSecret !== undefined) {
    env.push(
      { name: NATS_TOKEN_ENV, valueFrom: { secretKeyRef: { name: c.natsTokenSecret.name, key: c.natsTokenSecret.key } } },
      { name: "TINY_NATS_URL", value: withTokenReference(c.natsUrl) },
    );
  }
  return env;
}

/** The chart values overlay (see the file header). */
export function chartKedaValues(c: ChartRelease, a: Autoscale): Record<string, unknown> {
  const fullname = chartFullname(c.release);
  const hookUrl = c.natsUrl !== undefined && c.natsTokenSecret === undefined ? c.natsUrl : undefined;
  const installArgs = ["pre-install", `--name=${c.moduleName ?? fullname}`, ...(hookUrl ? [`--nats-url=${hookUrl}`] : [])];
  return {
    controllerManager: { replicas: Math.max(a.minReplicas, 1), manager: { installArgs, extraEnv: chartExtraEnv(c, a) } },
    ...(c.natsUrl !== undefined ? { natsURL: hookUrl ?? "" } : {}),
  };
}
