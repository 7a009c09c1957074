/**
 * Scaling as configuration (issue 36): the `--autoscale` policy and its checks, the KEDA objects it
 * becomes (src/provision/scaling.ts), what `provision --autoscale` adds to its plan (no fixed
 * replicas, the broker Job, the ScaledObject), `tools keda-values` for the platform's chart, the
 * scale-to-zero refusal for modules holding servers or timers, and the business consumer's drift
 * rule (src/transport/nats/streams.ts).
 */
import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import YAML from "yaml";
import { nanos } from "@nats-io/transport-node";
import { BUN } from "../../support/bun-test.ts";
import { buildPlan, dryRunPlan, planManifests, resolveOptions, type ManifestObject, type ProvisionInput } from "../../../src/provision/index.ts";
import {
  AUTOSCALE_DEFAULTS,
  checkScaleToZero,
  kedaManifests,
  keepRunningComponents,
  moduleNodes,
  parseAutoscaleSpec,
  resolveAutoscale,
  ScaleToZeroRefusedError,
} from "../../../src/provision/scaling.ts";
import { chartFullname, chartKedaValues, checkChartNatsUrl, parseTokenSecret } from "../../../src/provision/keda-values.ts";
import { uninstallTargets } from "../../../src/provision/uninstall.ts";
import { businessConsumerConfig, consumerDrift, systemConsumerConfig } from "../../../src/transport/nats/streams.ts";
import { preInstallCommand } from "../../../src/cli/commands/pre-install.ts";
import { DEFAULT_MAX_CONCURRENT_HOPS } from "../../../src/transport/slots.ts";
import { defineComponent, target, Type } from "tinyhost";

const ROOT = resolve(import.meta.dir, "../../..");

async function cli(...args: string[]) {
  const p = Bun.spawn([BUN, "src/cli/main.ts", ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe", env: { ...process.env, TINYHOST_LOG_LEVEL: "silent" } });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { out, err, code };
}

function objects(input: ProvisionInput): ManifestObject[] {
  return planManifests(dryRunPlan(resolveOptions(input))).map((m) => m.object);
}

const INPUT: ProvisionInput = { namespace: "prod", name: "shop", image: "ghcr.io/acme/shop:1.2.0" };

describe("--autoscale policy", () => {
  test("on = the defaults: scale to zero, a pod's hop slots of lag per replica", () => {
    expect(resolveAutoscale(parseAutoscaleSpec("on"))).toEqual({
      minReplicas: 0,
      maxReplicas: AUTOSCALE_DEFAULTS.max,
      lagThreshold: DEFAULT_MAX_CONCURRENT_HOPS,
      activationLagThreshold: 0,
      pollingIntervalSeconds: AUTOSCALE_DEFAULTS.polling,
      cooldownPeriodSeconds: AUTOSCALE_DEFAULTS.cooldown,
    });
    expect(resolveAutoscale(parseAutoscaleSpec("min=1, max=4,lag=50,activation=2,polling=3,cooldown=30"))).toEqual({
      minReplicas: 1,
      maxReplicas: 4,
      lagThreshold: 50,
      activationLagThreshold: 2,
      pollingIntervalSeconds: 3,
      cooldownPeriodSeconds: 30,
    });
  });

  test("bad specs are refused naming the key and the value", () => {
    expect(() => parseAutoscaleSpec("min=0,maxx=3")).toThrow('--autoscale unknown key "maxx" in "min=0,maxx=3"');
    expect(() => parseAutoscaleSpec("max=-1")).toThrow('--autoscale max must be a positive integer, got "-1"');
    expect(() => parseAutoscaleSpec("max=two")).toThrow('--autoscale max must be a positive integer, got "two"');
    // 0 is refused for lag, so the words say positive; 0 means something for min, activation and cooldown.
    expect(() => parseAutoscaleSpec("lag=-1")).toThrow('--autoscale lag must be a positive integer, got "-1"');
    expect(() => parseAutoscaleSpec("polling=x")).toThrow('--autoscale polling must be a positive integer, got "x"');
    expect(() => parseAutoscaleSpec("min=-1")).toThrow('--autoscale min must be a non-negative integer, got "-1"');
    expect(() => parseAutoscaleSpec("cooldown=-5")).toThrow('--autoscale cooldown must be a non-negative integer, got "-5"');
    expect(() => parseAutoscaleSpec("min=1,min=2")).toThrow("--autoscale key min is given twice");
    expect(() => resolveAutoscale({ min: 3, max: 2 })).toThrow("--autoscale min (3) must not exceed max (2)");
    expect(() => resolveAutoscale({ max: 0 })).toThrow("--autoscale max must be at least 1, got 0");
    expect(() => resolveAutoscale({ lag: 0 })).toThrow("--autoscale lag must be at least 1 (hops per replica), got 0");
    expect(() => resolveAutoscale({ polling: 0 })).toThrow("--autoscale polling must be at least 1 second, got 0");
  });
});

describe("the KEDA objects", () => {
  const a = resolveAutoscale({ min: 0, max: 5, lag: 20, polling: 2, cooldown: 10 });

  test("a ScaledObject with one nats-jetstream trigger on the module's consumer, at the broker's headless monitoring endpoint, with a fallback", () => {
    const [so, ...rest] = kedaManifests({ namespace: "prod", release: "shop", module: "Shop", deployment: "shop-controller-manager" }, a);
    expect(rest).toEqual([]);
    expect(so!.object.spec).toEqual({
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "shop-controller-manager" },
      pollingInterval: 2,
      cooldownPeriod: 10,
      minReplicaCount: 0,
      maxReplicaCount: 5,
      // A missing consumer or a broker down is a scaler error: KEDA keeps one replica instead of zero.
      fallback: { failureThreshold: 3, replicas: 1 },
      triggers: [
        {
          type: "nats-jetstream",
          metadata: {
            stream: "module-edges",
            consumer: "shop", // the SDK-sanitized module name, as the module names its consumer
            lagThreshold: "20",
            activationLagThreshold: "0",
            natsServerMonitoringEndpoint: "tinysystems-nats-headless.prod.svc:8222",
            account: "$G",
          },
        },
      ],
    });
  });

  test("with a Secret the endpoint and account come from a TriggerAuthentication, applied first", () => {
    const m = kedaManifests({ namespace: "prod", release: "shop", module: "shop", deployment: "d", authSecret: "nats-monitor" }, a);
    expect(m.map((x) => x.object.kind)).toEqual(["TriggerAuthentication", "ScaledObject"]);
    expect(m[0]!.object.spec).toEqual({
      secretTargetRef: [
        { parameter: "natsServerMonitoringEndpoint", name: "nats-monitor", key: "natsServerMonitoringEndpoint" },
        { parameter: "account", name: "nats-monitor", key: "account" },
      ],
    });
    const trigger = (m[1]!.object.spec as { triggers: { metadata: Record<string, string>; authenticationRef?: { name: string } }[] }).triggers[0]!;
    expect(trigger.authenticationRef).toEqual({ name: "shop-scaler" });
    expect(trigger.metadata.natsServerMonitoringEndpoint).toBeUndefined();
  });
});

describe("provision --autoscale", () => {
  test("without it: one fixed replica and no scaling objects", () => {
    const list = objects(INPUT);
    expect(list.find((o) => o.kind === "Deployment" && o.metadata.name === "shop-controller-manager")!.spec).toMatchObject({ replicas: 1 });
    expect(list.filter((o) => ["Job", "ScaledObject", "TriggerAuthentication"].includes(o.kind))).toEqual([]);
  });

  test("leaves replicas to KEDA, runs the broker Job before the ScaledObject, after the release", () => {
    const list = objects({ ...INPUT, autoscale: "min=0,max=3" });
    const deployment = list.find((o) => o.kind === "Deployment" && o.metadata.name === "shop-controller-manager")!;
    expect((deployment.spec as Record<string, unknown>).replicas).toBeUndefined();
    const kinds = list.map((o) => o.kind);
    expect(kinds.slice(-2)).toEqual(["Job", "ScaledObject"]);
    expect(kinds.lastIndexOf("Deployment")).toBeLessThan(kinds.indexOf("Job"));
    const job = list.find((o) => o.kind === "Job")!;
    const pod = (job.spec as { template: { spec: Record<string, unknown> } }).template.spec as {
      automountServiceAccountToken: boolean;
      containers: { image: string; command: string[]; args: string[]; env: { name: string; valueFrom?: unknown; value?: string }[] }[];
    };
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.containers[0]!.image).toBe("ghcr.io/acme/shop:1.2.0");
    expect(pod.containers[0]!.command).toEqual(["/manager"]);
    // The token is $(NATS_TOKEN), expanded by the kubelet from the Secret: never in the Job spec.
    expect(pod.containers[0]!.args).toEqual([
      "pre-install",
      "--name=shop",
      "--namespace=prod",
      "--nats-url=nats://$(NATS_TOKEN)@tinysystems-nats.prod.svc:4222",
      "--broker-only",
    ]);
    expect(pod.containers[0]!.env).toEqual([{ name: "NATS_TOKEN", valueFrom: { secretKeyRef: { name: "tinysystems-nats-auth", key: "token" } } }]);
    expect(JSON.stringify(job)).not.toContain("GENERATED-ON-FIRST-APPLY");
  });

  test("the broker token is in its Secret only: not in the broker Job, the Deployment, the ScaledObject", () => {
    const token = "T0kenOnlyInTheSecret0123456789abcdefghij";
    const list = planManifests(buildPlan(resolveOptions({ ...INPUT, autoscale: "min=0" }), { natsToken: token })).map((m) => m.object);
    const b64 = Buffer.from(token).toString("base64");
    const holding = list.filter((o) => JSON.stringify(o).includes(token) || JSON.stringify(o).includes(b64));
    expect(holding.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(["Secret/tinysystems-nats-auth"]);
    expect(list.some((o) => o.kind === "Job")).toBe(true);
  });

  test("--keda-endpoint points KEDA elsewhere", () => {
    const list = objects({ ...INPUT, autoscale: "on", kedaEndpoint: "nats.infra.svc:8222" });
    const so = list.find((o) => o.kind === "ScaledObject")!;
    expect(JSON.stringify(so)).toContain('"natsServerMonitoringEndpoint":"nats.infra.svc:8222"');
  });

  test("--autoscale with --no-nats is refused naming both flags: without the broker there is no backlog to scale on", async () => {
    expect(() => resolveOptions({ ...INPUT, nats: false, autoscale: "min=0" })).toThrow(
      '--autoscale "min=0" needs the broker, but --no-nats is given: KEDA scales on the module\'s JetStream backlog',
    );
    expect(() => resolveOptions({ ...INPUT, nats: false, autoscale: "min=1" })).toThrow("--no-nats");
    const r = await cli("provision", "--dry-run", "--autoscale", "min=0", "--no-nats");
    expect(r.code).toBe(2);
    expect(r.err).toContain('--autoscale "min=0" needs the broker, but --no-nats is given');
    expect(r.out).toBe("");
  });

  test("--keda-* need --autoscale; a bad endpoint, port or Secret name is refused by name, quoting the value", () => {
    expect(() => resolveOptions({ ...INPUT, kedaEndpoint: "x:1" })).toThrow("--keda-endpoint needs --autoscale");
    expect(() => resolveOptions({ ...INPUT, autoscale: "on", kedaEndpoint: "http://x:8222" })).toThrow("--keda-endpoint must be host:port");
    for (const bad of ["host:99999", "host:0", "host:65536"])
      expect(() => resolveOptions({ ...INPUT, autoscale: "on", kedaEndpoint: bad })).toThrow(
        `--keda-endpoint must be host:port with a port from 1 to 65535 (the broker's monitoring port, e.g. nats.nats.svc:8222), got "${bad}"`,
      );
    expect(resolveOptions({ ...INPUT, autoscale: "on", kedaEndpoint: "host:65535" }).kedaEndpoint).toBe("host:65535");
    expect(() => resolveOptions({ ...INPUT, autoscale: "on", kedaAuthSecret: "Bad_Name" })).toThrow("--keda-auth-secret must be a Secret name");
  });

  test("--autoscale off (or none) means no autoscaling: one fixed replica, no KEDA objects", async () => {
    for (const off of ["off", "none", " OFF "]) expect(resolveOptions({ ...INPUT, autoscale: off }).autoscale).toBeUndefined();
    expect(objects({ ...INPUT, autoscale: "off" }).filter((o) => ["Job", "ScaledObject"].includes(o.kind))).toEqual([]);
    expect(() => resolveOptions({ ...INPUT, autoscale: "off", kedaEndpoint: "x:1" })).toThrow(
      '--keda-endpoint needs --autoscale (it is "off": no autoscaling)',
    );
    const r = await cli("provision", "--dry-run", "--autoscale", "off");
    expect(r.code).toBe(0);
    expect(r.out).not.toContain("ScaledObject");
  });

  test("uninstall removes KEDA's objects and the Job first, whether or not it is told about autoscaling", () => {
    const kinds = uninstallTargets(resolveOptions(INPUT)).map((t) => `${t.kind}/${t.name}`);
    expect(kinds.slice(0, 3)).toEqual(["ScaledObject/shop-scaler", "TriggerAuthentication/shop-scaler", "Job/shop-broker-setup"]);
  });

  test("uninstall --help names the ScaledObject, TriggerAuthentication and broker Job it removes", async () => {
    const r = await cli("uninstall", "--help");
    expect(r.code).toBe(0);
    const text = r.out.replace(/\s+/g, " ");
    expect(text).toContain("ScaledObject <name>-scaler");
    expect(text).toContain("TriggerAuthentication <name>-scaler");
    expect(text).toContain("Job <name>-broker-setup");
  });

  test("the NATS the plan installs serves its monitoring port (KEDA's /jsz) on the headless Service", () => {
    const list = objects(INPUT);
    const headless = list.find((o) => o.kind === "Service" && o.metadata.name === "tinysystems-nats-headless")!;
    expect((headless.spec as { ports: { name: string; port: number }[] }).ports).toContainEqual(expect.objectContaining({ name: "monitor", port: 8222 }));
    const config = list.find((o) => o.kind === "ConfigMap" && o.metadata.name === "tinysystems-nats-config")!;
    expect((config.data as Record<string, string>)["nats.conf"]).toContain("http_port: 8222");
  });
});

describe("scale to zero and modules holding servers or timers", () => {
  const a0 = resolveAutoscale({ min: 0 });
  const keep = keepRunningComponents([{ name: "ticker", requirements: { scaling: { keepRunning: "it ticks" } } }, { name: "transform" }]);

  test("a node of such a component refuses min=0, naming node, component and why; min=1 passes", () => {
    const nodes = [
      { name: "f.shop.ticker-1", component: "ticker" },
      { name: "f.shop.transform-1", component: "transform" },
    ];
    expect(() => checkScaleToZero(a0, keep, nodes)).toThrow(ScaleToZeroRefusedError);
    expect(() => checkScaleToZero(a0, keep, nodes)).toThrow("min=0 refused: node f.shop.ticker-1 (ticker: it ticks)");
    expect(checkScaleToZero(resolveAutoscale({ min: 1 }), keep, nodes)).toEqual([]);
    expect(checkScaleToZero(a0, keep, [nodes[1]!])).toEqual([]);
  });

  test("without the flows it warns which components must not be used", () => {
    const w = checkScaleToZero(a0, keep, undefined);
    expect(w).toHaveLength(1);
    expect(w[0]).toContain("nodes of ticker must not be in its flows (ticker: it ticks)");
  });

  test("the module's nodes are those whose name carries its sanitized name", () => {
    const nodes = moduleNodes(
      [
        { metadata: { name: "a.shop.ticker-1" }, spec: { component: "ticker" } },
        { metadata: { name: "a.billing.cron-1" }, spec: { component: "cron" } },
      ],
      "Shop",
    );
    expect(nodes).toEqual([{ name: "a.shop.ticker-1", component: "ticker" }]);
  });

  test("http_server, ticker and cron declare it; requirements.scaling is checked like the rest", () => {
    const base = { info: { name: "x", description: "X", info: "" }, ports: () => [target("in", Type.Object({}))], handle: () => undefined };
    expect(() => defineComponent({ ...base, requirements: { scaling: { keepRunning: "" } } })).toThrow(
      'component x: requirements.scaling.keepRunning must be a non-empty string (why the module must keep a replica), got ""',
    );
    expect(() => defineComponent({ ...base, requirements: { scaling: { keepAlive: "x" } } } as never)).toThrow(
      'component x: requirements.scaling has an unknown key "keepAlive" (known: keepRunning)',
    );
  });

  test("--manifests with no node of the module is refused, naming the directory, the module and what it holds", async () => {
    const r = await cli("provision", "--dry-run", "--name", "store", "--autoscale", "min=0", "--manifests", "test/fixtures/scaling-manifests");
    expect(r.code).toBe(2);
    expect(r.err).toContain(
      '--manifests "test/fixtures/scaling-manifests" holds no TinyNode of module "store" (3 TinyNode(s), of module(s) billing, shop), so the scale-to-zero check would prove nothing',
    );
    expect(r.out).toBe("");
  });

  test("tinyhost provision --dry-run --autoscale min=0 --manifests refuses a flow with a ticker (exit 2), min=1 prints the plan", async () => {
    const refused = await cli("provision", "--dry-run", "--name", "shop", "--autoscale", "min=0", "--manifests", "test/fixtures/scaling-manifests");
    expect(refused.code).toBe(2);
    expect(refused.err).toContain("min=0 refused: node a1b2c3d4.shop.ticker-0a1b2 (ticker: it emits on a timer while started");
    expect(refused.err).not.toContain("billing");
    const ok = await cli("provision", "--dry-run", "--name", "shop", "--autoscale", "min=1", "--manifests", "test/fixtures/scaling-manifests");
    expect(ok.code).toBe(0);
    expect(YAML.parseAllDocuments(ok.out).some((d) => (d.toJS() as { kind?: string })?.kind === "ScaledObject")).toBe(true);
  });
});

describe("tools keda-values (the platform's chart)", () => {
  test("names follow the chart's fullname", () => {
    expect(chartFullname("shop")).toBe("shop-tinysystems-operator");
    expect(chartFullname("my-tinysystems-operator")).toBe("my-tinysystems-operator");
  });

  test("prints the ScaledObject for the chart's Deployment and consumer", async () => {
    const r = await cli("tools", "keda-values", "--release", "shop", "--namespace", "prod", "--autoscale", "min=1,max=4");
    expect(r.code).toBe(0);
    const docs = YAML.parseAllDocuments(r.out).map((d) => d.toJS() as ManifestObject);
    expect(docs.map((d) => d.kind)).toEqual(["ScaledObject"]);
    const spec = docs[0]!.spec as { scaleTargetRef: { name: string }; triggers: { metadata: Record<string, string> }[]; maxReplicaCount: number };
    expect(spec.scaleTargetRef.name).toBe("shop-tinysystems-operator-controller-manager");
    expect(spec.triggers[0]!.metadata.consumer).toBe("shop-tinysystems-operator");
    expect(spec.maxReplicaCount).toBe(4);
  });

  test("--chart-values: the hook's installArgs and natsURL carry the broker; replicas start at max(min, 1); the module's env: JetStream, the floor, the chart's OTLP_DSN", async () => {
    const env = [
      { name: "OTLP_DSN", value: "http://token@tinysystems-otel-collector:2345" }, // the chart's default entry: Helm replaces the list whole
      { name: "TINY_NATS_TRANSPORT", value: "jetstream" },
      { name: "TINYHOST_AUTOSCALE_MIN", value: "0" },
    ];
    expect(chartKedaValues({ release: "shop", namespace: "prod", natsUrl: "nats://nats.infra.svc:4222" }, resolveAutoscale({ min: 0 }))).toEqual({
      controllerManager: {
        replicas: 1,
        manager: { installArgs: ["pre-install", "--name=shop-tinysystems-operator", "--nats-url=nats://nats.infra.svc:4222"], extraEnv: env },
      },
      natsURL: "nats://nats.infra.svc:4222",
    });
    const r = await cli("tools", "keda-values", "--release", "shop", "--chart-values", "--module-name", "Shop", "--autoscale", "min=2");
    expect(r.code).toBe(0);
    expect(YAML.parse(r.out)).toEqual({
      controllerManager: {
        replicas: 2,
        manager: { installArgs: ["pre-install", "--name=Shop"], extraEnv: [env[0], env[1], { name: "TINYHOST_AUTOSCALE_MIN", value: "2" }] },
      },
    });
  });

  test("--chart-values with the token in a Secret: no token in the values or the hook's args; the module reads it by secretKeyRef", async () => {
    const r = await cli(
      "tools",
      "keda-values",
      "--release",
      "shop",
      "--chart-values",
      "--autoscale",
      "min=0",
      "--nats-url",
      "nats://nats.infra.svc:4222",
      "--nats-token-secret",
      "nats-auth/tok",
    );
    expect(r.code).toBe(0);
    const values = YAML.parse(r.out) as { natsURL: string; controllerManager: { manager: { installArgs: string[]; extraEnv: Record<string, unknown>[] } } };
    // The chart renders natsURL into a plain TINY_NATS_URL: emptied, ours comes from extraEnv.
    expect(values.natsURL).toBe("");
    expect(values.controllerManager.manager.installArgs).toEqual(["pre-install", "--name=shop-tinysystems-operator"]);
    expect(values.controllerManager.manager.extraEnv.slice(-2)).toEqual([
      { name: "NATS_TOKEN", valueFrom: { secretKeyRef: { name: "nats-auth", key: "tok" } } },
      { name: "TINY_NATS_URL", value: "nats://$(NATS_TOKEN)@nats.infra.svc:4222" },
    ]);
    expect(r.out).not.toMatch(/nats:\/\/[^$@\s]+@/); // no URL with a literal credential anywhere
    expect(parseTokenSecret("nats-auth")).toEqual({ name: "nats-auth", key: "token" });
  });

  test("--chart-values refuses a --nats-url with credentials, without echoing them", async () => {
    const r = await cli("tools", "keda-values", "--release", "shop", "--chart-values", "--nats-url", "nats://s3cr3tT0ken@nats.infra.svc:4222");
    expect(r.code).toBe(2);
    expect(r.err).toContain(
      '--nats-url "nats://***@nats.infra.svc:4222" carries credentials, which would be written into the Helm values and the pre-install Job\'s args',
    );
    expect(r.err).toContain("--nats-token-secret <secret>[/<key>]");
    expect(r.err + r.out).not.toContain("s3cr3tT0ken");
    expect(() => checkChartNatsUrl("nats://a:4222,nats://u:p@b:4222")).toThrow('"nats://***@b:4222" carries credentials');
    expect(() => checkChartNatsUrl("nats://nats.infra.svc:4222?token=s3cr3t")).toThrow('got "nats://nats.infra.svc:4222?***"');
    expect(() => checkChartNatsUrl("nats.infra.svc:4222")).toThrow(
      '--nats-url must be scheme://host:port (e.g. nats://nats.nats.svc:4222), got "nats.infra.svc:4222"',
    );
  });

  test("a flag of the other output is refused, never dropped; --autoscale off prints nothing and says so", async () => {
    const cases: [string[], string][] = [
      [["--chart-values", "--keda-endpoint", "nats.infra.svc:8222"], "--keda-endpoint goes into the ScaledObject, which --chart-values does not print"],
      [["--chart-values", "--keda-auth-secret", "mon"], "--keda-auth-secret goes into the ScaledObject, which --chart-values does not print"],
      [["--nats-url", "nats://nats.infra.svc:4222"], "--nats-url goes into the chart values overlay only: add --chart-values"],
      [["--chart-values", "--nats-token-secret", "s"], "--nats-token-secret needs --nats-url"],
      [["--autoscale", "off"], '--autoscale "off" leaves nothing to print'],
      [
        ["--keda-endpoint", "h:99999"],
        '--keda-endpoint must be host:port with a port from 1 to 65535 (the broker\'s monitoring port, e.g. nats.nats.svc:8222), got "h:99999"',
      ],
    ];
    for (const [args, message] of cases) {
      const r = await cli("tools", "keda-values", "--release", "shop", ...args);
      expect({ args, code: r.code, out: r.out }).toEqual({ args, code: 2, out: "" });
      expect(r.err).toContain(message);
    }
  });

  test("refusals exit 2 naming the flag", async () => {
    const none = await cli("tools", "keda-values");
    expect({ code: none.code, err: none.err.trim() }).toEqual({
      code: 2,
      err: "tinyhost tools keda-values: --release is required (the Helm release name the chart was installed as)",
    });
    const bad = await cli("tools", "keda-values", "--release", "shop", "--autoscale", "max=0");
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("--autoscale max must be at least 1, got 0");
  });
});

describe("the business consumer outlives the pods", () => {
  test("its config has no inactivity threshold; the per-pod system consumer keeps its own", () => {
    expect(businessConsumerConfig("shop").inactive_threshold).toBeUndefined();
    expect(systemConsumerConfig("shop", "pod-1").inactive_threshold).toBe(nanos(5 * 60_000));
  });

  test("drift: only ack_wait, max_deliver and a set inactivity threshold count", () => {
    const cfg = businessConsumerConfig("shop");
    expect(consumerDrift(cfg, { ...cfg })).toEqual([]);
    expect(consumerDrift(cfg, { ...cfg, inactive_threshold: nanos(60_000) })).toEqual(["inactive_threshold"]);
    expect(consumerDrift(cfg, { ...cfg, ack_wait: nanos(5_000), max_deliver: 5 })).toEqual(["ack_wait", "max_deliver"]);
  });

  test("pre-install: --broker-only needs --nats-url, and a broker needs --name (exit 2)", async () => {
    const error = console.error;
    let printed = "";
    console.error = (m: string) => (printed += `${m}\n`);
    try {
      expect(await preInstallCommand.run(["--broker-only", "--name", "shop"])).toBe(2);
      expect(printed).toContain("--broker-only needs --nats-url");
      printed = "";
      expect(await preInstallCommand.run(["--broker-only", "--nats-url", "nats://tok@127.0.0.1:1"])).toBe(2);
      expect(printed).toContain("--name is needed to create the module's business consumer on nats://***@127.0.0.1:1");
      expect(printed).not.toContain("tok@");
    } finally {
      console.error = error;
    }
  });
});
