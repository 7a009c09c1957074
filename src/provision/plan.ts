/**
 * The whole provisioning plan in apply order (provision.md §8): Namespace → CRDs → NATS (auth
 * Secret, config, Services, StatefulSet) → OTEL collector → module release → with `--autoscale`, the
 * broker Job and KEDA's objects (docs/operations.md "Scaling"). `--dry-run` prints it;
 * `provision` applies it group by group (waiting for the CRDs after their group).
 */
import { crdManifests } from "./crds.ts";
import type { Manifest } from "./manifest.ts";
import { namespaceManifest } from "./namespace.ts";
import { DRY_RUN_TOKEN, natsManifests, natsSecretManifest } from "./nats.ts";
import type { ProvisionOptions } from "./options.ts";
import { otelManifests } from "./otel.ts";
import { namesFor, releaseManifests } from "./release.ts";
import { brokerJobManifest } from "./broker-job.ts";
import { kedaManifests } from "./scaling.ts";

/** The plan, by group. Groups of disabled add-ons are empty. */
export interface ProvisionPlan {
  namespace: Manifest;
  crds: Manifest[];
  /** The create-if-absent auth Secret; absent without NATS. */
  natsSecret?: Manifest;
  nats: Manifest[];
  otel: Manifest[];
  release: Manifest[];
  /** With `--autoscale`: the broker Job (with NATS), then KEDA's TriggerAuthentication and ScaledObject. */
  scaling: Manifest[];
}

/** Values only known at apply time. */
export interface PlanInputs {
  /** Token for a new auth Secret (the module reads the stored one through `secretKeyRef`). */
  natsToken: string;
}

/** Builds the plan for validated options. */
export function buildPlan(o: ProvisionOptions, inputs: PlanInputs): ProvisionPlan {
  return {
    namespace: namespaceManifest(o.namespace),
    crds: crdManifests(),
    ...(o.nats ? { natsSecret: natsSecretManifest(o.namespace, inputs.natsToken) } : {}),
    nats: o.nats ? natsManifests(o.namespace, o.natsImage, o.natsReplicas) : [],
    otel: o.otel ? otelManifests(o.namespace, o.otelImage) : [],
    release: releaseManifests(o, { nats: o.nats }),
    scaling: scalingManifests(o),
  };
}

/** The scaling group: empty without `--autoscale`. */
export function scalingManifests(o: ProvisionOptions): Manifest[] {
  if (!o.autoscale) return [];
  const target = {
    namespace: o.namespace,
    release: o.release,
    module: o.release,
    deployment: namesFor(o).deployment,
    ...(o.kedaEndpoint ? { endpoint: o.kedaEndpoint } : {}),
    ...(o.kedaAuthSecret ? { authSecret: o.kedaAuthSecret } : {}),
  };
  return [...(o.nats ? [brokerJobManifest(o)] : []), ...kedaManifests(target, o.autoscale)];
}

/** Every manifest of a plan, flattened in apply order. */
export function planManifests(plan: ProvisionPlan): Manifest[] {
  return [plan.namespace, ...plan.crds, ...(plan.natsSecret ? [plan.natsSecret] : []), ...plan.nats, ...plan.otel, ...plan.release, ...plan.scaling];
}

/**
 * The plan `--dry-run` prints: no cluster is read, so the auth Secret shows the placeholder
 * {@link DRY_RUN_TOKEN} in `stringData` (a real run generates a token once and keeps it). The
 * Deployment never holds the token: it reads it from the Secret.
 */
export function dryRunPlan(o: ProvisionOptions): ProvisionPlan {
  const plan = buildPlan(o, { natsToken: DRY_RUN_TOKEN });
  if (plan.natsSecret) {
    const { data: _data, ...rest } = plan.natsSecret.object;
    plan.natsSecret = { ...plan.natsSecret, object: { ...rest, stringData: { token: DRY_RUN_TOKEN } } };
  }
  return plan;
}
