/**
 * The OTEL collector the modules send traces to (OTLP_DSN) and `tiny` reads them from: the
 * tinysystems-otel-collector chart 0.1.5 (provision.md §5.4) — ServiceAccount, a ConfigMap for
 * the collector's environment, Deployment, Service `tinysystems-otel-collector:2345`.
 */
import { configMaps, deployments, serviceAccounts, services } from "../k8s/client/index.ts";
import { addonLabels } from "./labels.ts";
import { podSecurityContext, restrictedContainerSecurityContext } from "./security.ts";
import type { Manifest, ManifestObject } from "./manifest.ts";

/** Collector release name = object name = DNS name modules use. */
export const OTEL_NAME = "tinysystems-otel-collector";
/** Collector image (provision.md §5.4). */
export const OTEL_IMAGE = "ghcr.io/tiny-systems/otel-collector:0.6.0";
/** Version label of the collector objects. */
export const OTEL_VERSION = "0.6.0";
/** OTLP/gRPC port, named `otlp-grpc`. */
export const OTEL_PORT = 2345;
/** Collector uid/gid (chart securityContext). */
export const OTEL_UID = 10001;

function labels(): Record<string, string> {
  return addonLabels(OTEL_NAME, OTEL_VERSION, "collector");
}

function selector(): Record<string, string> {
  return { "app.kubernetes.io/name": OTEL_NAME, "app.kubernetes.io/instance": OTEL_NAME };
}

/**
 * The collector objects in apply order. The ConfigMap is the collector's environment (`envFrom`);
 * tinyhost applies it with no keys, so keys an operator adds (e.g. `NATS_URL` for trace
 * persistence, provision.md §5.4) are owned by that operator and survive re-provisioning.
 * @param image - the collector image (default {@link OTEL_IMAGE}).
 */
export function otelManifests(namespace: string, image: string = OTEL_IMAGE): Manifest[] {
  const deployment: ManifestObject = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: OTEL_NAME, namespace, labels: labels() },
    spec: {
      replicas: 1,
      selector: { matchLabels: selector() },
      template: {
        metadata: { labels: selector() },
        spec: {
          serviceAccountName: OTEL_NAME,
          securityContext: podSecurityContext(OTEL_UID),
          containers: [
            {
              name: "otel-collector",
              image,
              imagePullPolicy: "IfNotPresent",
              ports: [{ name: "otlp-grpc", containerPort: OTEL_PORT, protocol: "TCP" }],
              envFrom: [{ configMapRef: { name: OTEL_NAME, optional: true } }],
              livenessProbe: { grpc: { port: OTEL_PORT }, initialDelaySeconds: 10, periodSeconds: 20 },
              readinessProbe: { grpc: { port: OTEL_PORT }, initialDelaySeconds: 5, periodSeconds: 10 },
              resources: { requests: { cpu: "100m", memory: "1Gi" }, limits: { cpu: "500m", memory: "1Gi" } },
              securityContext: restrictedContainerSecurityContext(),
            },
          ],
        },
      },
    },
  };
  return [
    {
      resource: serviceAccounts,
      policy: "apply-force",
      object: { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: OTEL_NAME, namespace, labels: labels() } },
    },
    {
      resource: configMaps,
      policy: "apply-force",
      object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: OTEL_NAME, namespace, labels: labels() } },
    },
    {
      resource: services,
      policy: "apply-force",
      object: {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: OTEL_NAME, namespace, labels: labels() },
        spec: { type: "ClusterIP", selector: selector(), ports: [{ name: "otlp-grpc", port: OTEL_PORT, protocol: "TCP", targetPort: "otlp-grpc" }] },
      },
    },
    { resource: deployments, policy: "apply-force", object: deployment },
  ];
}
