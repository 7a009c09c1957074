/**
 * The apply pipeline: writes a plan to the cluster group by group with server-side apply as
 * field manager `tinyhost` (Kubernetes docs "Server-Side Apply"), waits for the CRDs, keeps the
 * broker token, and reports per object whether it was created, changed, unchanged or kept.
 */
import {
  clusterRoleBindings,
  clusterRoles,
  customResourceDefinitions,
  deployments,
  isAlreadyExists,
  isNotFound,
  type ApplyConfiguration,
  type KubeClient,
  type KubeObject,
  type ResourceDescriptor,
} from "../k8s/client/index.ts";
import { brokerUrl, redactBrokerUrl } from "./broker-url.ts";
import { ApplyObjectError, CrdNotEstablishedError, ReleaseImageMismatchError } from "./errors.ts";
import { FIELD_MANAGER, MANAGED_BY, MODULE_IMAGE_ANNOTATION } from "./labels.ts";
import { describeManifest, type Manifest } from "./manifest.ts";
import { splitImage, type ProvisionOptions } from "./options.ts";
import { buildPlan } from "./plan.ts";
import { declaredReleaseRules, namesFor } from "./release.ts";
import { generateToken } from "./token.ts";
import { checkKedaInstalled } from "./scaling.ts";

export type { AppliedObject, ApplyResult } from "./applied.ts";
import { deleteManaged, scalingTargets } from "./deletion.ts";
import type { AppliedObject, ApplyResult } from "./applied.ts";

/** Outcome of {@link provision}. */
export interface ProvisionResult {
  /** Every object, in apply order. */
  objects: AppliedObject[];
  /** The module's broker URL with the token redacted (`nats://***@…`); absent without NATS. */
  brokerUrl?: string;
}

/** Options of {@link provision}. */
export interface ProvisionRunOptions {
  /** Called after each object is written (the CLI prints a line). */
  onObject?: (o: AppliedObject) => void;
  /** How long each CRD may take to become Established, ms. Default 30 000. */
  crdTimeoutMs?: number;
  /** Poll interval while waiting for CRDs, ms. Default 100 (envtest polls every 100 ms). */
  pollMs?: number;
}

/**
 * Writes one manifest by its policy and reports the result. `apply` / `apply-force` read the
 * object first to tell created / configured / unchanged (same resourceVersion = nothing changed).
 * @throws ApplyObjectError wrapping the API error (a Conflict names the fields another manager owns).
 */
export async function applyManifest(kube: KubeClient, m: Manifest): Promise<AppliedObject> {
  const { kind, metadata } = m.object;
  const namespace = metadata.namespace;
  const base = { kind, name: metadata.name, ...(namespace ? { namespace } : {}) };
  try {
    if (m.policy === "create-if-absent") {
      try {
        const created = await kube.create(m.resource, m.object, { fieldManager: FIELD_MANAGER, ...(namespace ? { namespace } : {}) });
        return { ...base, result: "created", resourceVersion: created.metadata.resourceVersion ?? "" };
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
        const existing = await kube.get(m.resource, metadata.name, namespace);
        return { ...base, result: "kept", resourceVersion: existing.metadata.resourceVersion ?? "" };
      }
    }
    const before = await kube.get(m.resource, metadata.name, namespace).catch((e: unknown) => {
      if (isNotFound(e)) return undefined;
      throw e;
    });
    const after = await kube.apply(m.resource, m.object as unknown as ApplyConfiguration<KubeObject>, {
      fieldManager: FIELD_MANAGER,
      force: m.policy === "apply-force",
      ...(namespace ? { namespace } : {}),
    });
    const rv = after.metadata.resourceVersion ?? "";
    const result: ApplyResult = before === undefined ? "created" : before.metadata.resourceVersion === rv ? "unchanged" : "configured";
    return { ...base, result, resourceVersion: rv };
  } catch (e) {
    throw new ApplyObjectError(describeManifest(m), e);
  }
}

/**
 * Waits until every named CRD has condition Established=True (test-control-plane.md §3.1).
 * @throws CrdNotEstablishedError when NamesAccepted=False or the timeout passes.
 */
export async function waitForCrds(kube: KubeClient, names: readonly string[], timeoutMs = 30_000, pollMs = 100): Promise<void> {
  for (const name of names) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const crd = await kube.get(customResourceDefinitions, name);
      const conditions = (crd.status?.conditions ?? []) as { type?: string; status?: string; message?: string }[];
      const refused = conditions.find((c) => c.type === "NamesAccepted" && c.status === "False");
      if (refused) throw new CrdNotEstablishedError(name, refused.message ?? "names not accepted");
      if (conditions.some((c) => c.type === "Established" && c.status === "True")) break;
      if (Date.now() >= deadline) throw new CrdNotEstablishedError(name, `timed out after ${timeoutMs} ms`);
      await Bun.sleep(pollMs);
    }
  }
}

/**
 * The publisher guard (provision.md §3.2 "Identity", §8): when the release's Deployment exists
 * and records an image from another repository, refuse. A missing Deployment or annotation passes.
 * @throws ReleaseImageMismatchError; KubeApiError other than NotFound.
 */
export async function checkReleaseImage(kube: KubeClient, o: ProvisionOptions): Promise<void> {
  let running: string | undefined;
  try {
    const current = await kube.get(deployments, namesFor(o).deployment, o.namespace);
    running = current.metadata.annotations?.[MODULE_IMAGE_ANNOTATION];
  } catch (e) {
    if (isNotFound(e)) return;
    throw e;
  }
  if (!running) return;
  let runningRepo: string;
  try {
    runningRepo = splitImage(running).repository;
  } catch {
    runningRepo = running;
  }
  if (runningRepo !== o.imageRepository) throw new ReleaseImageMismatchError(o.release, running, o.image);
}

/**
 * Removes what earlier tinyhost versions or earlier runs applied and this run does not: the
 * cluster-scoped `<R-N>-manager-role` and its binding (the module's rules are a namespaced Role
 * now), and the ClusterRole `<R-N>-extra` with its binding when no component declares cluster-wide
 * rules any more. Only objects labelled `app.kubernetes.io/managed-by=tinyhost` are deleted;
 * anything else of that name is left.
 * @returns the objects removed (result `deleted`).
 * @throws KubeApiError other than NotFound.
 */
export async function pruneLegacy(kube: KubeClient, o: ProvisionOptions): Promise<AppliedObject[]> {
  const names = namesFor(o);
  const out: AppliedObject[] = [];
  const stale: (readonly ["ClusterRoleBinding" | "ClusterRole", typeof clusterRoles | typeof clusterRoleBindings, string])[] = [
    ["ClusterRoleBinding", clusterRoleBindings, names.legacyClusterRoleBinding],
    ["ClusterRole", clusterRoles, names.legacyClusterRole],
  ];
  if (declaredReleaseRules(o).cluster.length === 0)
    stale.push(["ClusterRoleBinding", clusterRoleBindings, names.extraClusterRole], ["ClusterRole", clusterRoles, names.extraClusterRole]);
  for (const [kind, res, name] of stale) {
    let found;
    try {
      found = await kube.get(res as ResourceDescriptor<KubeObject>, name);
    } catch (e) {
      if (isNotFound(e)) continue;
      throw e;
    }
    if (found.metadata.labels?.["app.kubernetes.io/managed-by"] !== MANAGED_BY) continue;
    await kube.delete(res as ResourceDescriptor<KubeObject>, name).catch((e: unknown) => {
      if (!isNotFound(e)) throw e;
    });
    out.push({ kind, name, result: "deleted", resourceVersion: found.metadata.resourceVersion ?? "" });
  }
  return out;
}

/**
 * Provisions namespace, CRDs, broker, collector and the module release (provision.md §2, §8):
 * 0. with `--autoscale`, KEDA's API must be served (discovery; nothing is applied otherwise); 1. publisher guard; 2. Namespace with `tinysystems.io/managed=true`; 3. CRDs, then wait for
 * Established; 4. NATS auth Secret create-if-absent (a fresh 40-character token only when absent;
 * the module reads it through `secretKeyRef`), the broker objects; 5. the collector; 6. the release
 * objects (with the ClusterRole of the components' declared cluster-wide rules, if any), without
 * `--autoscale` after removing an earlier run's scaling objects ({@link scalingTargets}); 7. the
 * cluster-scoped roles this run no longer applies are removed ({@link pruneLegacy}).
 * Idempotent: a second run with the same options changes no object.
 * @throws KedaMissingError, ReleaseImageMismatchError, ApplyObjectError, CrdNotEstablishedError; KubeApiError /
 *   KubeConnectionError from reads. Objects written before a failure stay (re-run to finish).
 */
export async function provision(kube: KubeClient, o: ProvisionOptions, run: ProvisionRunOptions = {}): Promise<ProvisionResult> {
  const objects: AppliedObject[] = [];
  const record = (r: AppliedObject) => {
    objects.push(r);
    run.onObject?.(r);
  };
  const write = async (m: Manifest) => record(await applyManifest(kube, m));
  if (o.autoscale) await checkKedaInstalled(kube, o.kedaAuthSecret !== undefined);
  await checkReleaseImage(kube, o);
  // Rendered with a fresh token; only the Secret uses it, and only if none exists yet.
  const plan = buildPlan(o, { natsToken: generateToken() });
  await write(plan.namespace);
  for (const m of plan.crds) await write(m);
  await waitForCrds(
    kube,
    plan.crds.map((m) => m.object.metadata.name),
    run.crdTimeoutMs,
    run.pollMs,
  );
  if (plan.natsSecret) await write(plan.natsSecret);
  // Without --autoscale, an earlier run's KEDA objects go before the release: they would keep
  // scaling the Deployment (to zero) while the module no longer knows it may be scaled.
  if (!o.autoscale)
    for (const t of scalingTargets(o)) {
      const r = await deleteManaged(kube, t);
      if (r.result !== "absent") record(r);
    }
  for (const m of [...plan.nats, ...plan.otel, ...plan.release, ...plan.scaling]) await write(m);
  for (const r of await pruneLegacy(kube, o)) record(r);
  return { objects, ...(o.nats ? { brokerUrl: redactBrokerUrl(brokerUrl(o.namespace, "token")) } : {}) };
}
