/**
 * The `--dry-run` plan: every object, in a stable order, with the chart's labels, args, env,
 * probes and securityContext (runtime-spec §12, provision.md §5, §8), and printed as YAML that
 * parses back to the same objects.
 */
import { afterEach, describe, expect, test } from "bun:test";
import YAML from "yaml";
import { provisionCommand } from "../../../src/cli/commands/provision.ts";
import { parseRunClusterFlags } from "../../../src/cli/commands/run-cluster.ts";
import {
  DRY_RUN_TOKEN,
  dryRunPlan,
  NATS_IMAGE,
  OTEL_IMAGE,
  planManifests,
  resolveOptions,
  toYamlStream,
  type ManifestObject,
  type ProvisionInput,
} from "../../../src/provision/index.ts";

const INPUT: ProvisionInput = { namespace: "prod", name: "shop", image: "ghcr.io/acme/shop:1.2.0", ingressSuffix: "apps.example.com" };

function objects(input: ProvisionInput = INPUT): ManifestObject[] {
  return planManifests(dryRunPlan(resolveOptions(input))).map((m) => m.object);
}

function find(list: ManifestObject[], kind: string, name: string): ManifestObject {
  const o = list.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) throw new Error(`no ${kind} ${name} in ${list.map((x) => `${x.kind}/${x.metadata.name}`).join(", ")}`);
  return o;
}

interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: { name: string; value?: string }[];
  ports?: { name: string; containerPort: number }[];
  livenessProbe?: unknown;
  readinessProbe?: unknown;
  securityContext?: unknown;
}

function podSpec(o: ManifestObject): {
  securityContext: unknown;
  serviceAccountName?: string;
  terminationGracePeriodSeconds?: number;
  containers: Container[];
} {
  return (o.spec as { template: { spec: ReturnType<typeof podSpec> } }).template.spec;
}

const RELEASE_LABELS = {
  "app.kubernetes.io/name": "tinysystems-operator",
  "app.kubernetes.io/instance": "shop",
  "app.kubernetes.io/managed-by": "tinyhost",
};

describe("dry-run plan", () => {
  test("lists every object in apply order", () => {
    expect(objects().map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      "Namespace/prod",
      "CustomResourceDefinition/tinycomponents.operator.tinysystems.io",
      "CustomResourceDefinition/tinyflows.operator.tinysystems.io",
      "CustomResourceDefinition/tinymodules.operator.tinysystems.io",
      "CustomResourceDefinition/tinynodes.operator.tinysystems.io",
      "CustomResourceDefinition/tinyprojects.operator.tinysystems.io",
      "CustomResourceDefinition/tinyscenarios.operator.tinysystems.io",
      "CustomResourceDefinition/tinywidgetpages.operator.tinysystems.io",
      "Secret/tinysystems-nats-auth",
      "ConfigMap/tinysystems-nats-config",
      "Service/tinysystems-nats-headless",
      "Service/tinysystems-nats",
      "StatefulSet/tinysystems-nats",
      "ServiceAccount/tinysystems-otel-collector",
      "ConfigMap/tinysystems-otel-collector",
      "Service/tinysystems-otel-collector",
      "Deployment/tinysystems-otel-collector",
      "ServiceAccount/shop-controller-manager",
      "Role/shop-manager-role",
      "RoleBinding/shop-manager-rolebinding",
      "Role/shop-leader-election-role",
      "RoleBinding/shop-leader-election-rolebinding",
      "Role/shop-extra",
      "RoleBinding/shop-extra",
      "Service/shop-manager-service",
      "Ingress/shop-manager-ingress",
      "Deployment/shop-controller-manager",
    ]);
  });

  test("labels the namespace as managed", () => {
    expect(find(objects(), "Namespace", "prod").metadata.labels).toEqual({ "tinysystems.io/managed": "true" });
  });

  test("gives every release object the chart's name/instance labels and managed-by tinyhost", () => {
    const release = objects().slice(-10);
    for (const o of release) expect(o.metadata.labels).toMatchObject(RELEASE_LABELS);
    expect(find(release, "Service", "shop-manager-service").metadata.labels?.["app.kubernetes.io/component"]).toBe("manager");
    expect(find(release, "Deployment", "shop-controller-manager").metadata.labels).toMatchObject({
      "app.kubernetes.io/component": "manager",
      "control-plane": "controller-manager",
    });
    expect(find(release, "Ingress", "shop-manager-ingress").metadata.labels?.["app.kubernetes.io/component"]).toBeUndefined();
  });

  test("runs the module with the chart's args", () => {
    const manager = podSpec(find(objects(), "Deployment", "shop-controller-manager")).containers[0]!;
    expect(manager.name).toBe("manager");
    expect(manager.image).toBe("ghcr.io/acme/shop:1.2.0");
    expect(manager.command).toEqual(["/manager"]);
    expect(manager.args).toEqual([
      "run",
      "--health-probe-bind-address=:8081",
      "--metrics-bind-address=127.0.0.1:8080",
      "--grpc-server-bind-address=:8483",
      "--name=shop",
      "--version=1.2.0",
      "--namespace=prod",
    ]);
    expect(manager.ports as unknown).toEqual([{ name: "grpc", containerPort: 8483, protocol: "TCP" }]);
  });

  test("the Deployment's args are accepted by tinyhost run's own flag parser", () => {
    const args = podSpec(find(objects(), "Deployment", "shop-controller-manager")).containers[0]!.args!;
    expect(parseRunClusterFlags(args.slice(1))).toMatchObject({
      name: "shop",
      version: "1.2.0",
      namespace: "prod",
      healthProbeBindAddress: ":8081",
      metricsBindAddress: "127.0.0.1:8080",
      grpcServerBindAddress: ":8483",
    });
  });

  test("sets the chart's env; the broker token comes from the auth Secret by secretKeyRef, never in the Deployment", () => {
    const env = podSpec(find(objects(), "Deployment", "shop-controller-manager")).containers[0]!.env;
    expect(env as unknown).toEqual([
      { name: "OTLP_DSN", value: "http://token@tinysystems-otel-collector:2345" },
      { name: "TINY_NATS_TRANSPORT", value: "jetstream" },
      { name: "RELEASE_NAME", value: "shop" },
      { name: "RELEASE_NAMESPACE", value: "prod" },
      { name: "KUBERNETES_CLUSTER_DOMAIN", value: "cluster.local" },
      { name: "SELF_SERVICE_HOST", value: "shop-manager-service:8483" },
      { name: "BUN_JSC_forceRAMSize", value: "134217728" },
      { name: "BUN_JSC_useDFGJIT", value: "1" },
      { name: "NATS_TOKEN", valueFrom: { secretKeyRef: { name: "tinysystems-nats-auth", key: "token" } } },
      { name: "TINY_NATS_URL", value: "nats://$(NATS_TOKEN)@tinysystems-nats.prod.svc:4222" },
      { name: "TINYHOST_NATS_CONNECT_WAIT_MS", value: "120000" },
      { name: "TINYHOST_STOP_DELAY_MS", value: "4000" },
    ]);
    expect(find(objects(), "Secret", "tinysystems-nats-auth")).toMatchObject({ stringData: { token: DRY_RUN_TOKEN } });
    expect(JSON.stringify(find(objects(), "Deployment", "shop-controller-manager"))).not.toContain(DRY_RUN_TOKEN);
  });

  test("leaves out OTLP_DSN and the NATS env and objects when both add-ons are off", () => {
    const list = objects({ ...INPUT, nats: false, otel: false });
    const names = podSpec(find(list, "Deployment", "shop-controller-manager")).containers[0]!.env!.map((e) => e.name);
    expect(names).toEqual([
      "RELEASE_NAME",
      "RELEASE_NAMESPACE",
      "KUBERNETES_CLUSTER_DOMAIN",
      "SELF_SERVICE_HOST",
      "BUN_JSC_forceRAMSize",
      "BUN_JSC_useDFGJIT",
      "TINYHOST_STOP_DELAY_MS",
    ]);
    expect(list.some((o) => o.metadata.name.startsWith("tinysystems-nats") || o.metadata.name.startsWith("tinysystems-otel"))).toBe(false);
  });

  test("probes /healthz and /readyz on 8081 with the chart's timings", () => {
    const manager = podSpec(find(objects(), "Deployment", "shop-controller-manager")).containers[0]!;
    expect(manager.livenessProbe).toEqual({ httpGet: { path: "/healthz", port: 8081 }, initialDelaySeconds: 15, periodSeconds: 20 });
    expect(manager.readinessProbe).toEqual({ httpGet: { path: "/readyz", port: 8081 }, initialDelaySeconds: 5, periodSeconds: 10 });
  });

  test("runs as uid 65532 under Pod Security restricted with a read-only root and an emptyDir /tmp, 10 s grace", () => {
    const spec = podSpec(find(objects(), "Deployment", "shop-controller-manager")) as ReturnType<typeof podSpec> & { volumes: unknown[] };
    expect(spec.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 65532,
      runAsGroup: 65532,
      fsGroup: 65532,
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(spec.containers[0]!.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect((spec.containers[0] as unknown as { volumeMounts: unknown }).volumeMounts).toEqual([{ name: "tmp", mountPath: "/tmp" }]);
    expect(spec.volumes).toEqual([{ name: "tmp", emptyDir: { sizeLimit: "64Mi" } }]);
    expect(spec.terminationGracePeriodSeconds).toBe(10);
    expect(spec.serviceAccountName).toBe("shop-controller-manager");
  });

  test("every container of every workload has resources and the restricted security context", () => {
    const workloads = objects().filter((o) => o.kind === "Deployment" || o.kind === "StatefulSet");
    expect(workloads.map((w) => w.metadata.name)).toEqual(["tinysystems-nats", "tinysystems-otel-collector", "shop-controller-manager"]);
    for (const w of workloads) {
      const spec = podSpec(w);
      expect(spec.securityContext, w.metadata.name).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
      for (const c of spec.containers as (Container & { resources?: { requests?: object; limits?: { memory?: string } } })[]) {
        expect(c.securityContext, `${w.metadata.name}/${c.name}`).toMatchObject({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ["ALL"] },
        });
        expect(c.resources?.requests, `${w.metadata.name}/${c.name}`).toBeDefined();
        expect(c.resources?.limits?.memory, `${w.metadata.name}/${c.name}`).toBeDefined();
      }
    }
    const manager = podSpec(find(objects(), "Deployment", "shop-controller-manager")).containers[0] as unknown as { resources: unknown };
    expect(manager.resources).toEqual({ requests: { cpu: "10m", memory: "64Mi" }, limits: { cpu: "500m", memory: "256Mi" } });
  });

  test("the Ingress carries class, suffix annotation and a default backend that routes nothing, never rules or tls", () => {
    const ingress = find(objects(), "Ingress", "shop-manager-ingress");
    expect(ingress.metadata.annotations).toEqual({ "tinysystems.io/ingress-hostname-suffix": "apps.example.com" });
    expect(Object.keys(ingress.spec as object).sort()).toEqual(["defaultBackend", "ingressClassName"]);
    expect((ingress.spec as { defaultBackend: unknown }).defaultBackend).toEqual({
      resource: { apiGroup: "operator.tinysystems.io", kind: "TinyModule", name: "shop" },
    });
    expect(objects({ ...INPUT, ingressSuffix: undefined }).find((o) => o.kind === "Ingress")!.metadata.annotations).toBeUndefined();
  });

  test("the manager Service selects the pods by the clean three-key selector and exposes grpc 8483", () => {
    const service = find(objects(), "Service", "shop-manager-service");
    expect(service.spec).toEqual({
      type: "ClusterIP",
      selector: { "control-plane": "controller-manager", "app.kubernetes.io/name": "tinysystems-operator", "app.kubernetes.io/instance": "shop" },
      ports: [{ name: "grpc", port: 8483, protocol: "TCP", targetPort: "grpc" }],
    });
  });

  test("the broker StatefulSet keeps a JetStream volume and reads its token from the auth Secret", () => {
    const sts = find(objects(), "StatefulSet", "tinysystems-nats");
    const spec = sts.spec as {
      volumeClaimTemplates: { metadata: { name: string }; spec: { resources: { requests: { storage: string } } } }[];
      persistentVolumeClaimRetentionPolicy: unknown;
    };
    expect(spec.volumeClaimTemplates.map((t) => [t.metadata.name, t.spec.resources.requests.storage])).toEqual([["tinysystems-nats-js", "2Gi"]]);
    expect(spec.persistentVolumeClaimRetentionPolicy).toEqual({ whenDeleted: "Retain", whenScaled: "Retain" });
    const env = (podSpec(sts).containers[0]!.env ?? []) as { name: string; valueFrom?: unknown }[];
    expect(env.find((e) => e.name === "NATS_TOKEN")?.valueFrom).toEqual({ secretKeyRef: { name: "tinysystems-nats-auth", key: "token" } });
  });

  test("runs the broker and the collector from the public images, or from the images given (a node with no registry)", () => {
    const image = (list: ManifestObject[], kind: string, name: string) => podSpec(find(list, kind, name)).containers[0]!.image;
    expect(image(objects(), "StatefulSet", "tinysystems-nats")).toBe(NATS_IMAGE);
    expect(image(objects(), "Deployment", "tinysystems-otel-collector")).toBe(OTEL_IMAGE);
    const local = objects({ ...INPUT, natsImage: "tinyhost-nats:2.9.10", otelImage: "localhost/collector:1@sha256:" + "a".repeat(64) });
    expect(image(local, "StatefulSet", "tinysystems-nats")).toBe("tinyhost-nats:2.9.10");
    expect(image(local, "Deployment", "tinysystems-otel-collector")).toBe("localhost/collector:1@sha256:" + "a".repeat(64));
  });

  test("--nats-replicas 3: a 3-server StatefulSet routed through the headless Service, and the module keeps its streams at 3 replicas", () => {
    const list = objects({ ...INPUT, natsReplicas: "3" });
    const sts = find(list, "StatefulSet", "tinysystems-nats");
    expect((sts.spec as { replicas: number }).replicas).toBe(3);
    expect(podSpec(sts).containers[0]!.ports!.map((p) => `${p.name}:${p.containerPort}`)).toEqual(["client:4222", "monitor:8222", "cluster:6222"]);
    const headless = find(list, "Service", "tinysystems-nats-headless").spec as { ports: { name: string; port: number }[] };
    expect(headless.ports.map((p) => `${p.name}:${p.port}`)).toEqual(["client:4222", "monitor:8222", "cluster:6222"]);
    const conf = (find(list, "ConfigMap", "tinysystems-nats-config").data as Record<string, string>)["nats.conf"]!;
    const routes = [0, 1, 2].map((i) => `    nats://tinysystems-nats-${i}.tinysystems-nats-headless.prod.svc.cluster.local:6222`);
    expect(conf).toContain(["cluster {", "  name: tinysystems-nats", "  port: 6222", "  routes: [", ...routes, "  ]"].join("\n"));
    const env = podSpec(find(list, "Deployment", "shop-controller-manager")).containers[0]!.env ?? [];
    expect(env.find((e) => e.name === "TINYHOST_NATS_REPLICAS")?.value).toBe("3");
    // One server (the default): no cluster block, no port, no replicas setting for the module.
    const single = objects();
    expect((find(single, "ConfigMap", "tinysystems-nats-config").data as Record<string, string>)["nats.conf"]).not.toContain("cluster {");
    expect((find(single, "StatefulSet", "tinysystems-nats").spec as { replicas: number }).replicas).toBe(1);
    expect((podSpec(find(single, "Deployment", "shop-controller-manager")).containers[0]!.env ?? []).map((e) => e.name)).not.toContain(
      "TINYHOST_NATS_REPLICAS",
    );
  });

  test("the YAML stream parses back to the same objects, identically on every render", () => {
    const text = toYamlStream(objects());
    expect(toYamlStream(objects())).toBe(text);
    expect(YAML.parseAllDocuments(text).map((d) => d.toJSON())).toEqual(objects() as unknown[]);
  });
});

describe("tinyhost provision --dry-run", () => {
  const write = process.stdout.write;
  afterEach(() => {
    process.stdout.write = write;
  });

  test("prints the plan without a cluster and exits 0", async () => {
    let out = "";
    process.stdout.write = ((chunk: string) => {
      out += chunk;
      return true;
    }) as typeof process.stdout.write;
    const code = await provisionCommand.run([
      "--dry-run",
      "-n",
      "prod",
      "--name",
      "shop",
      "--image",
      "ghcr.io/acme/shop:1.2.0",
      "--ingress-suffix",
      "apps.example.com",
      "--kubeconfig",
      "/nonexistent",
    ]);
    process.stdout.write = write;
    expect(code).toBe(0);
    expect(out).toBe(toYamlStream(objects()));
  });

  test("exits 2 on a bad flag value", async () => {
    const error = console.error;
    console.error = () => {};
    try {
      expect(await provisionCommand.run(["--dry-run", "--image", "no-tag"])).toBe(2);
      expect(await provisionCommand.run(["--dry-run", "--nats-image", "Bad/Upper:1"])).toBe(2);
    } finally {
      console.error = error;
    }
  });
});
