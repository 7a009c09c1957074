/**
 * `provision`'s broker Job: the module's image runs `/manager pre-install --broker-only`
 * once inside the cluster, where the broker is reachable, and creates the JetStream streams and the
 * business consumer `<module>` before the first pod (src/provision/hooks/broker-prepare.ts). The
 * chart does the same in its pre-install hook when its `installArgs` carry `--nats-url`
 * (`tools keda-values`). The token reaches the Job as `$(NATS_TOKEN)` from the broker's Secret, which
 * the kubelet expands in `args`: the Job spec never holds it.
 */
import { defineResource, type GenericObject } from "../k8s/client/index.ts";
import { NATS_AUTH_SECRET, NATS_CLIENT_PORT, NATS_NAME, NATS_TOKEN_KEY } from "./broker-url.ts";
import { commonLabels } from "./labels.ts";
import type { Manifest, ManifestObject } from "./manifest.ts";
import type { ProvisionOptions } from "./options.ts";
import { MODULE_BINARY, MODULE_TMP_DIR, MODULE_UID, NATS_TOKEN_ENV, namesFor } from "./release.ts";
import { podSecurityContext, restrictedContainerSecurityContext } from "./security.ts";

/** batch/v1 Jobs. */
export const jobs = defineResource<GenericObject>({ group: "batch", version: "v1", plural: "jobs", namespaced: true, kind: "Job" });

/** Seconds a finished broker Job stays (its pod's log readable), then Kubernetes removes it; a later provision makes a new one. */
export const BROKER_JOB_TTL_SECONDS = 600;
/** Pod retries of the Job (the hook itself retries the broker for 2 min per attempt). */
export const BROKER_JOB_BACKOFF_LIMIT = 4;

/** Name of the broker Job of release R. */
export function brokerJobName(release: string): string {
  return `${release}-broker-setup`;
}

/** The `pre-install --broker-only` arguments: module name, namespace, the broker URL with `$(NATS_TOKEN)`. */
export function brokerJobArgs(o: Pick<ProvisionOptions, "release" | "namespace">): string[] {
  return [
    "pre-install",
    `--name=${o.release}`,
    `--namespace=${o.namespace}`,
    `--nats-url=nats://$(${NATS_TOKEN_ENV})@${NATS_NAME}.${o.namespace}.svc:${NATS_CLIENT_PORT}`,
    "--broker-only",
  ];
}

/** The Job: module image, the module's ServiceAccount without an API token (the hook talks only to the broker), Pod Security "restricted". */
export function brokerJob(o: ProvisionOptions): ManifestObject {
  const name = brokerJobName(o.release);
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name, namespace: o.namespace, labels: commonLabels(o.release) },
    spec: {
      backoffLimit: BROKER_JOB_BACKOFF_LIMIT,
      ttlSecondsAfterFinished: BROKER_JOB_TTL_SECONDS,
      template: {
        metadata: { labels: { "app.kubernetes.io/instance": o.release, "app.kubernetes.io/component": "broker-setup" } },
        spec: {
          restartPolicy: "Never",
          serviceAccountName: namesFor(o).serviceAccount,
          automountServiceAccountToken: false,
          securityContext: podSecurityContext(MODULE_UID),
          containers: [
            {
              name: "broker-setup",
              image: o.image,
              imagePullPolicy: "IfNotPresent",
              command: [MODULE_BINARY],
              args: brokerJobArgs(o),
              env: [{ name: NATS_TOKEN_ENV, valueFrom: { secretKeyRef: { name: NATS_AUTH_SECRET, key: NATS_TOKEN_KEY } } }],
              resources: { requests: { cpu: "10m", memory: "64Mi" }, limits: { cpu: "500m", memory: "256Mi" } },
              securityContext: restrictedContainerSecurityContext(),
              volumeMounts: [{ name: "tmp", mountPath: MODULE_TMP_DIR }],
            },
          ],
          // The root filesystem is read-only, as the module's: the same scratch /tmp.
          volumes: [{ name: "tmp", emptyDir: { sizeLimit: "16Mi" } }],
        },
      },
    },
  };
}

/**
 * The Job as a manifest, created if absent: a Job's pod template cannot change, and the one it
 * finds (within its TTL) already prepared the same config.
 */
export function brokerJobManifest(o: ProvisionOptions): Manifest {
  return { resource: jobs, policy: "create-if-absent", object: brokerJob(o) };
}
