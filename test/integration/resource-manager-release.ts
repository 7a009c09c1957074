/**
 * Shared fixture of the resource-manager integration tests: a fresh namespace holding the release's
 * pod, Service and Ingress as the tinysystems-operator chart creates them (runtime-spec §12,
 * provision.md §5.1), optionally with entries of other writers already in them, and helpers to
 * read both objects whole.
 */
import { createKubeClient, ingresses, pods, services, type Ingress, type KubeClient, type Service, type ServicePort } from "../../src/k8s/client/index.ts";
import { INGRESS_HOSTNAME_SUFFIX_ANNOTATION } from "../../src/core/api/index.ts";
import { createResourceManager, type ClusterModuleClient, type IngressRule, type IngressTls } from "../../src/k8s/resources/index.ts";
import type { ControlPlane } from "../support/control-plane.ts";

export const RELEASE = "shop";
export const POD = "shop-controller-manager-7d9f8-abcde";
export const SERVICE = "shop-manager-service";
export const INGRESS = "shop-manager-ingress";
export const SUFFIX = "x.example.com";
/** The chart's own Service port, as the apiserver returns it. */
export const GRPC_PORT: ServicePort = { name: "grpc", port: 8483, targetPort: "grpc", protocol: "TCP" };
/** The chart Ingress's placeholder default backend. */
export const DEFAULT_BACKEND = { service: { name: SERVICE, port: { number: 80 } } };
/** Field manager of the "other writer" (an admin, Helm, cert-manager …) in these tests. */
export const OTHER_WRITER = "admin-edit";

/** Chart common labels (provision.md §5.1 "L"). */
export function commonLabels(release: string): Record<string, string> {
  return {
    "helm.sh/chart": "tinysystems-operator-0.2.13",
    "app.kubernetes.io/name": "tinysystems-operator",
    "app.kubernetes.io/instance": release,
    "app.kubernetes.io/version": "0.1.3",
    "app.kubernetes.io/managed-by": "Helm",
  };
}

/** The chart's manager Service (ports replaceable). */
export function chartService(name: string, release = RELEASE, ports: ServicePort[] = [GRPC_PORT]): Service {
  return {
    metadata: { name, labels: { ...commonLabels(release), "app.kubernetes.io/component": "manager" } },
    spec: {
      type: "ClusterIP",
      selector: { "control-plane": "controller-manager", "app.kubernetes.io/name": "tinysystems-operator", "app.kubernetes.io/instance": release },
      ports,
    },
  };
}

/** The chart's manager Ingress (suffix annotation, placeholder default backend). */
export function chartIngress(
  name: string,
  suffix: string | undefined,
  release = RELEASE,
  extra: { rules?: IngressRule[]; tls?: IngressTls[]; defaultBackend?: boolean } = {},
): Ingress {
  return {
    metadata: { name, labels: commonLabels(release), ...(suffix ? { annotations: { [INGRESS_HOSTNAME_SUFFIX_ANNOTATION]: suffix } } : {}) },
    spec: {
      ingressClassName: "nginx",
      ...(extra.defaultBackend === false ? {} : { defaultBackend: DEFAULT_BACKEND }),
      ...(extra.rules ? { rules: extra.rules as Record<string, unknown>[] } : {}),
      ...(extra.tls ? { tls: extra.tls } : {}),
    },
  };
}

/** What {@link releaseIn} creates. */
export interface ReleaseOptions {
  /** Ingress suffix annotation; null = none. Default {@link SUFFIX}. */
  suffix?: string | null;
  /** Create the Service (default true). */
  service?: boolean;
  /** Create the Ingress (default true). */
  ingress?: boolean;
  /** Service ports (default the chart's `grpc`), written by {@link OTHER_WRITER}. */
  ports?: ServicePort[];
  /** Ingress rules already there, written by {@link OTHER_WRITER}. */
  rules?: IngressRule[];
  /** Ingress TLS entries already there. */
  tls?: IngressTls[];
  /** Give the Ingress the chart's default backend (default true). */
  defaultBackend?: boolean;
}

/** Creates the release's pod, Service and Ingress in a fresh namespace. @returns the namespace. */
export async function releaseIn(cp: ControlPlane, kube: KubeClient, prefix: string, opts: ReleaseOptions = {}): Promise<string> {
  const ns = await cp.newNamespace(prefix);
  await kube.create(
    pods,
    {
      metadata: {
        name: POD,
        labels: { "control-plane": "controller-manager", "app.kubernetes.io/name": "tinysystems-operator", "app.kubernetes.io/instance": RELEASE },
      },
      spec: { containers: [{ name: "manager", image: "example/shop-module:0.1.3", command: ["/manager"] }] },
    },
    { namespace: ns },
  );
  const write = { namespace: ns, fieldManager: OTHER_WRITER };
  if (opts.service !== false) await kube.create(services, chartService(SERVICE, RELEASE, opts.ports ?? [GRPC_PORT]), write);
  if (opts.ingress !== false) {
    const suffix = opts.suffix === null ? undefined : (opts.suffix ?? SUFFIX);
    await kube.create(
      ingresses,
      chartIngress(INGRESS, suffix, RELEASE, {
        ...(opts.rules ? { rules: opts.rules } : {}),
        ...(opts.tls ? { tls: opts.tls } : {}),
        ...(opts.defaultBackend === false ? { defaultBackend: false } : {}),
      }),
      write,
    );
  }
  return ns;
}

/** A resource manager for the namespace; `podName: null` leaves HOSTNAME unset (empty environment). */
export function managerFor(kube: KubeClient, ns: string, podName: string | null = POD, extra: { lockTtlMs?: number } = {}): ClusterModuleClient {
  return createResourceManager({ kube, namespace: ns, env: {}, ...(podName !== null ? { podName } : {}), ...extra });
}

/** A client of its own (own connection, own stats), as another process would have. */
export function ownClient(cp: ControlPlane): Promise<KubeClient> {
  return createKubeClient({ kubeconfig: cp.tokenKubeconfig, env: {} });
}

/** Both release objects, whole: every Service port, rule, path, TLS entry and annotation. */
export interface ReleaseState {
  service: { annotations: Record<string, string>; ports: ServicePort[] };
  ingress: { annotations: Record<string, string>; rules: IngressRule[]; tls: IngressTls[]; defaultBackend: unknown };
}

/** Reads {@link ReleaseState}. */
export async function releaseState(kube: KubeClient, ns: string): Promise<ReleaseState> {
  const [s, i] = await Promise.all([kube.get(services, SERVICE, ns), kube.get(ingresses, INGRESS, ns)]);
  return {
    service: { annotations: s.metadata.annotations ?? {}, ports: s.spec?.ports ?? [] },
    ingress: {
      annotations: i.metadata.annotations ?? {},
      rules: (i.spec?.rules ?? []) as IngressRule[],
      tls: i.spec?.tls ?? [],
      defaultBackend: i.spec?.defaultBackend,
    },
  };
}

/** The resourceVersions of the Service and the Ingress. */
export async function versionsOf(kube: KubeClient, ns: string): Promise<(string | undefined)[]> {
  const [s, i] = await Promise.all([kube.get(services, SERVICE, ns), kube.get(ingresses, INGRESS, ns)]);
  return [s.metadata.resourceVersion, i.metadata.resourceVersion];
}

/** A path `p` (Prefix) → `service:port`. */
export function pathTo(p: string, port: number, service = SERVICE) {
  return { path: p, pathType: "Prefix", backend: { service: { name: service, port: { number: port } } } };
}

/** The promise's rejection; throws when it resolves. */
export async function rejection(p: Promise<unknown>): Promise<Error> {
  const result = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(result instanceof Error)) throw new Error(`expected a rejection, got ${JSON.stringify(result)}`);
  return result;
}
