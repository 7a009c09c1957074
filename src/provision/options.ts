/**
 * What to provision, validated: namespace, release name, image and version, add-ons, ingress
 * settings. Defaults mirror `tiny up` / the chart (provision.md §1–§3, §5.1).
 */
import { version as tinyhostVersion } from "../core/version.ts";
import { ProvisionInputError } from "./errors.ts";
import { IMAGE_REFERENCE_FORM, ImageReferenceError, parseImageReference, type ImageReference } from "./image-ref.ts";
import { NATS_IMAGE, NATS_REPLICA_CHOICES } from "./nats.ts";
import { OTEL_IMAGE } from "./otel.ts";
import type { ComponentNeeds } from "./rbac-values.ts";
import { MAX_LABEL_LENGTH, sanitizeReleaseName } from "./sanitize.ts";
import { isAutoscaleOff, parseAutoscaleSpec, resolveAutoscale, type Autoscale } from "./scaling.ts";
import { MAX_STOP_DELAY_MS } from "../manager/stop-delay.ts";
import { MAX_NATS_CONNECT_WAIT_MS } from "../operator/nats-connect-wait.ts";

/** Default runtime namespace (`tiny -n`, provision.md §1). */
export const DEFAULT_NAMESPACE = "tinysystems";
/** Default release / module name (the examples' module, examples/generate.ts). */
export const DEFAULT_RELEASE = "tinyhost";
/** Default image: what `docker build -t tinyhost:<version> .` produces from this repository. */
export const DEFAULT_IMAGE = `tinyhost:${tinyhostVersion}`;
/** Default `ingressClassName` of the manager Ingress (chart default, provision.md §3.3). */
export const DEFAULT_INGRESS_CLASS = "nginx";
/** Namespaces the operator's pre-install check refuses (runtime-spec §9 `pre-install`). */
export const RESERVED_NAMESPACES: readonly string[] = ["default", "kube-system", "kube-public", "kube-node-lease"];

/**
 * Default stop delay of the provisioned module, ms: behind an Ingress, 4000 lost 0 requests in a
 * rollout, 0 lost ~1–4 % to 502s (docs/operations.md §11, test/integration/real-redeploy.test.ts).
 */
export const DEFAULT_PROVISION_STOP_DELAY_MS = 4_000;
/** Most `--stop-delay-ms` may be: the run's own bound (src/manager/stop-delay.ts `MAX_STOP_DELAY_MS`), so delay and drains fit the 8 s budget. */
export const MAX_PROVISION_STOP_DELAY_MS = MAX_STOP_DELAY_MS;
/** Default first-connect wait of a module provisioned with the broker, ms: the broker pod's start (image pull, JetStream store) fits in it. */
export const DEFAULT_PROVISION_NATS_CONNECT_WAIT_MS = 120_000;

/** Longest suffix any release-scoped name adds to R (`-manager-service`); Service names are DNS-1035 labels (≤ 63). */
const LONGEST_NAME_SUFFIX = "-manager-service".length;

/** Options as the user gives them (all optional). */
export interface ProvisionInput {
  /** Runtime namespace; default {@link DEFAULT_NAMESPACE}. */
  namespace?: string;
  /** Release name R (sanitized, provision.md §3.1); default {@link DEFAULT_RELEASE}. */
  name?: string;
  /** Module image `repository:tag`; default {@link DEFAULT_IMAGE}. */
  image?: string;
  /** Module version (`--version=` of `run`); default the image tag. Must not start with `v`. */
  version?: string;
  /** Install the NATS broker and point the module at it; default true. */
  nats?: boolean;
  /** Install the OTEL collector and set OTLP_DSN; default true. */
  otel?: boolean;
  /** Broker image; default {@link NATS_IMAGE} (e.g. a local build of Debian's nats-server, `npm run image -- nats`). */
  natsImage?: string;
  /** Collector image; default {@link OTEL_IMAGE}. */
  otelImage?: string;
  /** Servers of the broker, 1, 3 or 5 (the flag's text or a number); default 1. Streams and the ledger get as many replicas. */
  natsReplicas?: number | string;
  /** `tinysystems.io/ingress-hostname-suffix` on the manager Ingress; default none. */
  ingressSuffix?: string;
  /** `ingressClassName` of the manager Ingress; default {@link DEFAULT_INGRESS_CLASS}. */
  ingressClass?: string;
  /** Grant the CR-helper kinds (tinyflows, tinyprojects, tinywidgetpages, tinyscenarios; node create/delete); default false. */
  withCrHelpers?: boolean;
  /**
   * The module's components, for the rules they declare in `requirements` (extra namespaced and
   * cluster-wide rules, the Secrets their placeholders may name); default none (the runtime's own rules).
   */
  components?: readonly ComponentNeeds[];
  /** `--autoscale <spec>` (src/provision/scaling.ts `parseAutoscaleSpec`); absent, `off` or `none` = a fixed single replica. */
  autoscale?: string;
  /** `--keda-endpoint <host:port>`: the broker monitoring endpoint KEDA reads; default the provisioned broker's. */
  kedaEndpoint?: string;
  /** `--keda-auth-secret <name>`: a Secret with `natsServerMonitoringEndpoint` and `account` for KEDA's TriggerAuthentication. */
  kedaAuthSecret?: string;
  /** `--stop-delay-ms`: the module's `TINYHOST_STOP_DELAY_MS` (0–{@link MAX_PROVISION_STOP_DELAY_MS}, the flag's text or a number); default {@link DEFAULT_PROVISION_STOP_DELAY_MS}. */
  stopDelayMs?: number | string;
  /** `--nats-connect-wait-ms`: the module's `TINYHOST_NATS_CONNECT_WAIT_MS` (0–{@link MAX_NATS_CONNECT_WAIT_MS}); default {@link DEFAULT_PROVISION_NATS_CONNECT_WAIT_MS}. */
  natsConnectWaitMs?: number | string;
}

/** Validated options. */
export interface ProvisionOptions {
  namespace: string;
  /** Sanitized release name R. */
  release: string;
  /** `repository:tag` as given. */
  image: string;
  /** Image repository (before the tag). */
  imageRepository: string;
  /** Image tag. */
  imageTag: string;
  version: string;
  nats: boolean;
  otel: boolean;
  /** Broker image reference. */
  natsImage: string;
  /** Collector image reference. */
  otelImage: string;
  /** Servers of the broker (1, 3 or 5). */
  natsReplicas: number;
  /** Empty = no suffix annotation. */
  ingressSuffix: string;
  ingressClass: string;
  withCrHelpers: boolean;
  /** The components whose declared requirements the release grants (rbac-values.ts `declaredRbac`); absent = none. */
  components?: readonly ComponentNeeds[];
  /** KEDA scales the Deployment (a ScaledObject, no fixed `replicas`); absent = one replica. */
  autoscale?: Autoscale;
  /** Broker monitoring endpoint for KEDA; absent = the provisioned broker's headless Service. */
  kedaEndpoint?: string;
  /** Secret for KEDA's TriggerAuthentication; absent = none. */
  kedaAuthSecret?: string;
  /** `TINYHOST_STOP_DELAY_MS` of the module container, ms; 0 = not set. */
  stopDelayMs: number;
  /** `TINYHOST_NATS_CONNECT_WAIT_MS` of the module container, ms (only with the broker); 0 = not set. */
  natsConnectWaitMs: number;
}

/** `host:port` of a monitoring endpoint. */
const HOST_PORT = /^[A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?:\d{1,5}$/;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** Semantic version without a leading `v` (semver.org §2, §9, §10). */
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

/**
 * Checks `image` against the image reference grammar (image-ref.ts) and splits it into repository
 * and tag, which the release needs separately (provision.md §3.3 `BaseValues`).
 * @throws ProvisionInputError (`--image`) quoting the value: not a valid reference (which part
 *   and why, and the form), no tag, or a digest (the release records `repository:tag`).
 */
export function splitImage(image: string): { repository: string; tag: string } {
  let ref: ImageReference;
  try {
    ref = parseImageReference(image);
  } catch (e) {
    if (!(e instanceof ImageReferenceError)) throw e;
    throw new ProvisionInputError("--image", `${JSON.stringify(image)} is not a valid image reference: ${e.reason}; expected ${IMAGE_REFERENCE_FORM}`);
  }
  if (ref.digest !== undefined) throw new ProvisionInputError("--image", `must be repository:tag without a digest, got ${JSON.stringify(image)}`);
  if (ref.tag === undefined) throw new ProvisionInputError("--image", `needs a tag (repository:tag), got ${JSON.stringify(image)}`);
  return { repository: ref.repository, tag: ref.tag };
}

/**
 * `image` checked against the image reference grammar (image-ref.ts); a digest is allowed.
 * @throws ProvisionInputError (`flag`) quoting the value and what is wrong with it.
 */
function checkImage(flag: string, image: string): string {
  try {
    parseImageReference(image);
  } catch (e) {
    if (!(e instanceof ImageReferenceError)) throw e;
    throw new ProvisionInputError(flag, `${JSON.stringify(image)} is not a valid image reference: ${e.reason}; expected ${IMAGE_REFERENCE_FORM}`);
  }
  return image;
}

/**
 * `--nats-replicas` as a number.
 * @throws ProvisionInputError (`--nats-replicas`) quoting the value unless it is 1, 3 or 5.
 */
function checkNatsReplicas(raw: number | string | undefined): number {
  if (raw === undefined) return 1;
  const n = typeof raw === "number" ? raw : /^\d{1,2}$/.test(raw) ? Number(raw) : NaN;
  if (!NATS_REPLICA_CHOICES.includes(n)) {
    throw new ProvisionInputError(
      "--nats-replicas",
      `must be 1, 3 or 5 (a JetStream cluster needs an odd majority; streams have at most 5 replicas), got ${JSON.stringify(raw)}`,
    );
  }
  return n;
}

/**
 * A millisecond flag: a decimal integer (digits only, as the module's env parser takes them,
 * src/operator/env-integer.ts) from 0 to `max`; `fallback` when absent.
 * @throws ProvisionInputError (`flag`) quoting the value otherwise.
 */
function checkMs(flag: string, raw: number | string | undefined, max: number, fallback: number, why: string): number {
  if (raw === undefined) return fallback;
  const n = typeof raw === "number" ? raw : /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > max)
    throw new ProvisionInputError(flag, `must be a whole number of ms from 0 to ${max} (${why}), got ${JSON.stringify(raw)}`);
  return n;
}

/**
 * Validates and completes the options.
 * @throws ProvisionInputError naming the flag and value: namespace not a DNS label or reserved;
 *   name empty after sanitizing or too long for `<name>-manager-service`; image not a valid
 *   reference (image-ref.ts) or without a tag;
 *   version not semver (or starting with `v`, which `run` rejects, runtime-spec §9); NATS or
 *   collector image not a valid reference; ingress
 *   suffix or class not a DNS name; `--stop-delay-ms` or `--nats-connect-wait-ms` not a whole
 *   number of ms in range.
 */
export function resolveOptions(input: ProvisionInput = {}): ProvisionOptions {
  const namespace = input.namespace ?? DEFAULT_NAMESPACE;
  if (!DNS_LABEL.test(namespace) || namespace.length > MAX_LABEL_LENGTH) {
    throw new ProvisionInputError("--namespace", `must be a DNS label (lowercase a-z, 0-9, "-", ≤ 63), got ${JSON.stringify(namespace)}`);
  }
  if (RESERVED_NAMESPACES.includes(namespace)) {
    throw new ProvisionInputError("--namespace", `${JSON.stringify(namespace)} is reserved; modules refuse to run there (choose e.g. "${DEFAULT_NAMESPACE}")`);
  }
  const rawName = input.name ?? DEFAULT_RELEASE;
  const release = sanitizeReleaseName(rawName);
  if (release === "") throw new ProvisionInputError("--name", `has no letters or digits: ${JSON.stringify(rawName)}`);
  if (!/^[a-z]/.test(release)) {
    throw new ProvisionInputError("--name", `must start with a letter (Service names are DNS-1035 labels), got ${JSON.stringify(release)}`);
  }
  const maxRelease = MAX_LABEL_LENGTH - LONGEST_NAME_SUFFIX;
  if (release.length > maxRelease) {
    throw new ProvisionInputError(
      "--name",
      `is ${release.length} characters after sanitizing (${JSON.stringify(release)}); at most ${maxRelease} fit in "<name>-manager-service"`,
    );
  }
  const image = input.image ?? DEFAULT_IMAGE;
  const { repository, tag } = splitImage(image);
  const version = input.version ?? tag;
  if (!SEMVER.test(version)) {
    const hint = input.version === undefined ? ` (taken from the image tag; pass --version x.y.z)` : "";
    throw new ProvisionInputError("--version", `must be a semantic version without a leading "v", got ${JSON.stringify(version)}${hint}`);
  }
  const ingressSuffix = input.ingressSuffix ?? "";
  if (ingressSuffix !== "" && (!DNS_SUBDOMAIN.test(ingressSuffix) || ingressSuffix.length > 253)) {
    throw new ProvisionInputError("--ingress-suffix", `must be a lowercase DNS name, got ${JSON.stringify(ingressSuffix)}`);
  }
  const ingressClass = input.ingressClass ?? DEFAULT_INGRESS_CLASS;
  if (!DNS_SUBDOMAIN.test(ingressClass)) {
    throw new ProvisionInputError("--ingress-class", `must be a lowercase DNS name, got ${JSON.stringify(ingressClass)}`);
  }
  return {
    namespace,
    release,
    image,
    imageRepository: repository,
    imageTag: tag,
    version,
    nats: input.nats ?? true,
    otel: input.otel ?? true,
    natsImage: checkImage("--nats-image", input.natsImage ?? NATS_IMAGE),
    otelImage: checkImage("--otel-image", input.otelImage ?? OTEL_IMAGE),
    natsReplicas: checkNatsReplicas(input.natsReplicas),
    ingressSuffix,
    ingressClass,
    withCrHelpers: input.withCrHelpers ?? false,
    stopDelayMs: checkMs(
      "--stop-delay-ms",
      input.stopDelayMs,
      MAX_PROVISION_STOP_DELAY_MS,
      DEFAULT_PROVISION_STOP_DELAY_MS,
      "the delay and the drains fit the 8 s shutdown budget",
    ),
    natsConnectWaitMs: checkMs(
      "--nats-connect-wait-ms",
      input.natsConnectWaitMs,
      MAX_NATS_CONNECT_WAIT_MS,
      DEFAULT_PROVISION_NATS_CONNECT_WAIT_MS,
      "10 minutes",
    ),
    ...(input.components && input.components.length > 0 ? { components: input.components } : {}),
    ...scalingOptions(input),
  };
}

/**
 * `--keda-endpoint` checked: `host:port` with a port from 1 to 65535.
 * @throws ProvisionInputError (`--keda-endpoint`) quoting the value otherwise.
 */
export function checkKedaEndpoint(endpoint: string): string {
  const port = Number(endpoint.slice(endpoint.lastIndexOf(":") + 1));
  if (!HOST_PORT.test(endpoint) || port < 1 || port > 65535) {
    throw new ProvisionInputError(
      "--keda-endpoint",
      `must be host:port with a port from 1 to 65535 (the broker's monitoring port, e.g. nats.nats.svc:8222), got ${JSON.stringify(endpoint)}`,
    );
  }
  return endpoint;
}

/**
 * The scaling part of the options. `--autoscale off` (or `none`) is the same as no `--autoscale`.
 * @throws ProvisionInputError naming the flag and value: a bad `--autoscale` spec, `--autoscale`
 *   with `--no-nats` (no JetStream backlog to scale on), an endpoint not `host:port` (port
 *   1–65535), a Secret name not a DNS name, or `--keda-*` without `--autoscale`.
 */
function scalingOptions(input: ProvisionInput): Pick<ProvisionOptions, "autoscale" | "kedaEndpoint" | "kedaAuthSecret"> {
  if (input.autoscale === undefined || isAutoscaleOff(input.autoscale)) {
    const why = input.autoscale === undefined ? "needs --autoscale" : `needs --autoscale (it is ${JSON.stringify(input.autoscale)}: no autoscaling)`;
    if (input.kedaEndpoint !== undefined) throw new ProvisionInputError("--keda-endpoint", why);
    if (input.kedaAuthSecret !== undefined) throw new ProvisionInputError("--keda-auth-secret", why);
    return {};
  }
  const autoscale = resolveAutoscale(parseAutoscaleSpec(input.autoscale));
  // Without the broker the module runs over gRPC: no stream, no consumer, no backlog for KEDA to
  // read; the scaler would fail forever and the fallback would pin the Deployment.
  if (input.nats === false) {
    throw new ProvisionInputError(
      "--autoscale",
      `${JSON.stringify(input.autoscale)} needs the broker, but --no-nats is given: KEDA scales on the module's JetStream backlog, and without the broker the module runs over gRPC with none. Drop --no-nats, or --autoscale`,
    );
  }
  if (input.kedaEndpoint !== undefined) checkKedaEndpoint(input.kedaEndpoint);
  if (input.kedaAuthSecret !== undefined && (!DNS_SUBDOMAIN.test(input.kedaAuthSecret) || input.kedaAuthSecret.length > 253)) {
    throw new ProvisionInputError("--keda-auth-secret", `must be a Secret name (lowercase DNS name), got ${JSON.stringify(input.kedaAuthSecret)}`);
  }
  return {
    autoscale,
    ...(input.kedaEndpoint !== undefined ? { kedaEndpoint: input.kedaEndpoint } : {}),
    ...(input.kedaAuthSecret !== undefined ? { kedaAuthSecret: input.kedaAuthSecret } : {}),
  };
}
