/**
 * Every pod template `tinyhost provision` renders (module, broker, collector), checked against each
 * control of the Pod Security Standards' "restricted" profile (kubernetes.io/docs/concepts/security/
 * pod-security-standards, "Baseline" and "Restricted" tables) — the rules the apiserver's
 * PodSecurity admission applies to the Pods the controllers create in a namespace labelled
 * `pod-security.kubernetes.io/enforce=restricted`. The apiserver's own verdict is
 * provision-restricted.test.ts (integration); pods really running there, real-provision.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { dryRunPlan, planManifests, resolveOptions, type ManifestObject, type ProvisionInput } from "../../../src/provision/index.ts";

type Obj = Record<string, unknown>;

interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  allowPrivilegeEscalation?: boolean;
  privileged?: boolean;
  procMount?: string;
  seccompProfile?: { type?: string };
  capabilities?: { drop?: string[]; add?: string[] };
  seLinuxOptions?: { type?: string };
  appArmorProfile?: { type?: string };
  sysctls?: unknown[];
}

interface Container {
  name: string;
  securityContext?: SecurityContext;
  ports?: { hostPort?: number }[];
}

interface PodSpec {
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  securityContext?: SecurityContext;
  containers: Container[];
  initContainers?: Container[];
  ephemeralContainers?: Container[];
  volumes?: Obj[];
}

/** Volume types the restricted profile allows (everything else, hostPath first, is refused). */
const RESTRICTED_VOLUME_TYPES = new Set(["configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim", "projected", "secret"]);
const ALLOWED_SECCOMP = new Set(["RuntimeDefault", "Localhost"]);

/** The restricted profile's violations of one pod spec, as `<control>: <where>` lines (empty = admitted). */
function restrictedViolations(spec: PodSpec): string[] {
  const out: string[] = [];
  const pod = spec.securityContext ?? {};
  if (spec.hostNetwork || spec.hostPID || spec.hostIPC) out.push("host namespaces: pod");
  for (const v of spec.volumes ?? []) {
    const type = Object.keys(v).find((k) => k !== "name");
    if (!type || !RESTRICTED_VOLUME_TYPES.has(type)) out.push(`volume types: ${String(v.name)} is ${type}`);
  }
  if (pod.runAsUser === 0) out.push("running as non-root user: pod runAsUser 0");
  if (pod.seccompProfile?.type !== undefined && !ALLOWED_SECCOMP.has(pod.seccompProfile.type)) out.push(`seccomp: pod ${pod.seccompProfile.type}`);
  if (pod.seLinuxOptions?.type && !["container_t", "container_init_t", "container_kvm_t"].includes(pod.seLinuxOptions.type)) out.push("SELinux: pod");
  if (pod.appArmorProfile?.type === "Unconfined") out.push("AppArmor: pod");
  if ((pod.sysctls ?? []).length > 0) out.push("sysctls: pod (only the safe set is allowed; provision needs none)");
  for (const c of [...spec.containers, ...(spec.initContainers ?? []), ...(spec.ephemeralContainers ?? [])]) {
    const s = c.securityContext ?? {};
    const where = `container ${c.name}`;
    if (s.privileged) out.push(`privileged: ${where}`);
    if (s.allowPrivilegeEscalation !== false) out.push(`privilege escalation: ${where} must set allowPrivilegeEscalation false`);
    if ((s.runAsNonRoot ?? pod.runAsNonRoot) !== true) out.push(`running as non-root: ${where} (runAsNonRoot true on the container or the pod)`);
    if (s.runAsUser === 0) out.push(`running as non-root user: ${where} runAsUser 0`);
    const seccomp = s.seccompProfile?.type ?? pod.seccompProfile?.type;
    if (seccomp === undefined || !ALLOWED_SECCOMP.has(seccomp))
      out.push(`seccomp: ${where} (RuntimeDefault or Localhost on the container or the pod), got ${seccomp}`);
    if (!(s.capabilities?.drop ?? []).includes("ALL")) out.push(`capabilities: ${where} must drop ALL`);
    for (const cap of s.capabilities?.add ?? []) if (cap !== "NET_BIND_SERVICE") out.push(`capabilities: ${where} adds ${cap}`);
    if (s.procMount !== undefined && s.procMount !== "Default") out.push(`/proc mount type: ${where}`);
    if (s.appArmorProfile?.type === "Unconfined") out.push(`AppArmor: ${where}`);
    for (const p of c.ports ?? []) if (p.hostPort) out.push(`host ports: ${where} ${p.hostPort}`);
  }
  return out;
}

function workloads(input: ProvisionInput): ManifestObject[] {
  return planManifests(dryRunPlan(resolveOptions(input)))
    .map((m) => m.object)
    .filter((o) => o.kind === "Deployment" || o.kind === "StatefulSet" || o.kind === "DaemonSet" || o.kind === "Job");
}

function podSpecOf(o: ManifestObject): PodSpec {
  return (o.spec as { template: { spec: PodSpec } }).template.spec;
}

describe("the restricted-profile check itself", () => {
  const ok: PodSpec = {
    securityContext: { runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: "RuntimeDefault" } },
    containers: [{ name: "c", securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } } }],
    volumes: [{ name: "tmp", emptyDir: {} }],
  };

  test("admits a pod that sets every restricted control", () => {
    expect(restrictedViolations(ok)).toEqual([]);
  });

  test("names each control a pod breaks, with where", () => {
    const bad: PodSpec = {
      securityContext: { runAsUser: 0 },
      containers: [{ name: "c", securityContext: { capabilities: { add: ["NET_ADMIN"] } }, ports: [{ hostPort: 80 }] }],
      volumes: [{ name: "host", hostPath: { path: "/" } }],
    };
    expect(restrictedViolations(bad)).toEqual([
      "volume types: host is hostPath",
      "running as non-root user: pod runAsUser 0",
      "privilege escalation: container c must set allowPrivilegeEscalation false",
      "running as non-root: container c (runAsNonRoot true on the container or the pod)",
      "seccomp: container c (RuntimeDefault or Localhost on the container or the pod), got undefined",
      "capabilities: container c must drop ALL",
      "capabilities: container c adds NET_ADMIN",
      "host ports: container c 80",
    ]);
  });
});

describe("provision's pod templates under Pod Security restricted", () => {
  const inputs: [string, ProvisionInput][] = [
    ["defaults (module, NATS, collector)", { namespace: "prod", name: "shop", image: "ghcr.io/acme/shop:1.2.0" }],
    [
      "local images, no add-on images pulled",
      { namespace: "prod", name: "shop", image: "tinyhost:0.1.0", natsImage: "tinyhost-nats:2.9.10", otelImage: "tinyhost-otel-collector:0.5.1" },
    ],
    ["no add-ons", { namespace: "prod", name: "shop", image: "tinyhost:0.1.0", nats: false, otel: false }],
  ];

  for (const [name, input] of inputs) {
    test(`every container of every workload passes every restricted control: ${name}`, () => {
      const list = workloads(input);
      expect(list.length).toBe(input.nats === false ? 1 : 3);
      const violations = list.flatMap((w) => restrictedViolations(podSpecOf(w)).map((v) => `${w.kind}/${w.metadata.name}: ${v}`));
      expect(violations).toEqual([]);
    });
  }

  test("the broker's volume claim is the only volume not in the pod spec, and it is a persistentVolumeClaim once the controller adds it", () => {
    const nats = workloads({ namespace: "prod" }).find((w) => w.kind === "StatefulSet")!;
    const claims = (nats.spec as { volumeClaimTemplates: { metadata: { name: string } }[] }).volumeClaimTemplates;
    const spec = podSpecOf(nats);
    const asCreated: PodSpec = {
      ...spec,
      volumes: [...(spec.volumes ?? []), ...claims.map((c) => ({ name: c.metadata.name, persistentVolumeClaim: { claimName: `${c.metadata.name}-x-0` } }))],
    };
    expect(restrictedViolations(asCreated)).toEqual([]);
  });
});
