/**
 * `tinyhost provision` under Pod Security "restricted" (issue 15): the provision output applied by
 * server-side apply into a namespace labelled `pod-security.kubernetes.io/enforce=restricted`
 * (and warn/audit) answers without a single `Warning` header, and a Pod made from every workload's
 * pod template (the module Deployment, the broker StatefulSet, the collector Deployment) is
 * admitted. Pod Security enforces on Pods only — it merely warns on workloads — and no controller
 * manager runs here to make Pods (test-control-plane.md §3.3), so the test creates them. As a
 * control, a Pod from the platform chart's own Deployment template (helm template) is rejected in
 * the same namespace: enforcement is on.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { connectControlPlane, type ControlPlane } from "../support/control-plane.ts";
import { namespaces, type KubeClient } from "../../src/k8s/client/index.ts";
import { buildPlan, planManifests, resolveOptions, type Manifest, type ManifestObject } from "../../src/provision/index.ts";
import { findRendered, helmTemplate, prepareChart } from "./chart-pod.ts";

let cp: ControlPlane;
let kube: KubeClient;

beforeAll(async () => void ({ cp, kube } = await connectControlPlane()), 900_000);

const PSA_LABELS = {
  "pod-security.kubernetes.io/enforce": "restricted",
  "pod-security.kubernetes.io/enforce-version": "latest",
  "pod-security.kubernetes.io/warn": "restricted",
  "pod-security.kubernetes.io/warn-version": "latest",
  "pod-security.kubernetes.io/audit": "restricted",
};

/** The `Warning` response headers (several are joined by ", " in one value). */
function warningsOf(res: Response): string[] {
  const w = res.headers.get("warning");
  return w ? [w] : [];
}

/** API path of a manifest (collection path for POST when `name` is omitted). */
function pathOf(m: Manifest, name?: string): string {
  const r = m.resource;
  const base = r.group === "" ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  const ns = r.namespaced ? `/namespaces/${m.object.metadata.namespace}` : "";
  return `${base}${ns}/${r.plural}${name ? `/${encodeURIComponent(name)}` : ""}`;
}

/** Server-side apply of one object as field manager `tinyhost`; returns the status and the `Warning` headers. */
async function apply(m: Manifest): Promise<{ status: number; warnings: string[]; body: string }> {
  const res = await fetch(`${cp.server}${pathOf(m, m.object.metadata.name)}?fieldManager=tinyhost&force=true`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${cp.token}`, "content-type": "application/apply-patch+yaml", accept: "application/json" },
    body: JSON.stringify(m.object),
    tls: { ca: cp.caPem },
  });
  const warnings = warningsOf(res);
  return { status: res.status, warnings, body: await res.text() };
}

/** Creates a Pod; returns the status, the `Warning` headers and the body. */
async function createPod(namespace: string, pod: Record<string, unknown>): Promise<{ status: number; warnings: string[]; body: string }> {
  const res = await fetch(`${cp.server}/api/v1/namespaces/${namespace}/pods`, {
    method: "POST",
    headers: { authorization: `Bearer ${cp.token}`, "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(pod),
    tls: { ca: cp.caPem },
  });
  const warnings = warningsOf(res);
  return { status: res.status, warnings, body: await res.text() };
}

interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: { volumes?: Record<string, unknown>[] } & Record<string, unknown>;
}

/** The Pod a workload's controller would create from its template (a StatefulSet's claims become PVC volumes). */
function podFrom(workload: ManifestObject, name: string): Record<string, unknown> {
  const spec = workload.spec as { template: PodTemplate; volumeClaimTemplates?: { metadata: { name: string } }[] };
  const claims = (spec.volumeClaimTemplates ?? []).map((c) => ({
    name: c.metadata.name,
    persistentVolumeClaim: { claimName: `${c.metadata.name}-${workload.metadata.name}-0` },
  }));
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, labels: spec.template.metadata?.labels ?? {}, annotations: spec.template.metadata?.annotations ?? {} },
    spec: { ...spec.template.spec, volumes: [...(spec.template.spec.volumes ?? []), ...claims] },
  };
}

describe("provision under Pod Security restricted", () => {
  let ns: string;
  let plan: Manifest[];

  beforeAll(async () => {
    ns = await cp.newNamespace("restricted");
    await kube.mergePatch(namespaces, ns, { metadata: { labels: PSA_LABELS } });
    plan = planManifests(
      buildPlan(resolveOptions({ namespace: ns, name: "shop", image: "registry.example.com/acme/shop:1.2.0" }), { natsToken: "t0kenForTheRestrictedTest" }),
    );
  });

  test("every object of the plan applies with no Pod Security warning", async () => {
    const results: string[] = [];
    for (const m of plan) {
      const r = await apply(m);
      expect(r.status, `${m.object.kind}/${m.object.metadata.name}: ${r.body.slice(0, 300)}`).toBeLessThan(300);
      for (const w of r.warnings) results.push(`${m.object.kind}/${m.object.metadata.name}: ${w}`);
    }
    expect(results).toEqual([]);
    // The namespace keeps its Pod Security labels next to the managed label provision applies.
    expect((await kube.get(namespaces, ns)).metadata.labels).toMatchObject({ ...PSA_LABELS, "tinysystems.io/managed": "true" });
  });

  test("a Pod from every workload's template is admitted without a warning", async () => {
    const workloads = plan.map((m) => m.object).filter((o) => o.kind === "Deployment" || o.kind === "StatefulSet");
    expect(workloads.map((w) => `${w.kind}/${w.metadata.name}`)).toEqual([
      "StatefulSet/tinysystems-nats",
      "Deployment/tinysystems-otel-collector",
      "Deployment/shop-controller-manager",
    ]);
    const outcomes: string[] = [];
    for (const w of workloads) {
      const r = await createPod(ns, podFrom(w, `${w.metadata.name}-pod`));
      outcomes.push(
        `${w.metadata.name}: ${r.status}${r.warnings.length ? ` warnings ${r.warnings.join(" | ")}` : ""}${r.status >= 300 ? ` ${r.body.slice(0, 300)}` : ""}`,
      );
    }
    expect(outcomes).toEqual(workloads.map((w) => `${w.metadata.name}: 201`));
  });

  test("control: the platform chart's own Deployment draws the warning, and a Pod from its template is rejected there", async () => {
    const objects = await helmTemplate(await prepareChart(), "shop", ns, ["controllerManager.manager.image.repository=registry.example.com/acme/shop"]);
    const deployment = findRendered(objects, "Deployment", "-controller-manager") as unknown as ManifestObject;
    const applied = await apply({
      resource: plan.find((m) => m.object.kind === "Deployment")!.resource,
      policy: "apply-force",
      object: { ...deployment, metadata: { ...deployment.metadata, namespace: ns } },
    });
    expect(applied.status).toBeLessThan(300);
    expect(applied.warnings.join(" ")).toContain("would violate PodSecurity");
    const r = await createPod(ns, podFrom(deployment, "chart-manager-pod"));
    expect(r.status).toBe(403);
    const message = (JSON.parse(r.body) as { message: string }).message;
    expect(message).toContain('violates PodSecurity "restricted:latest"');
    expect(message).toContain("seccompProfile");
  });
});
