/**
 * tinyhost's own defaults on the provisioned module container (docs/operations.md §3): the stop
 * delay (`TINYHOST_STOP_DELAY_MS`, `--stop-delay-ms`) and, with the broker, the first-connect wait
 * (`TINYHOST_NATS_CONNECT_WAIT_MS`, `--nats-connect-wait-ms`); and that the delay fits the pod's grace period.
 */
import { afterEach, describe, expect, test } from "bun:test";
import YAML from "yaml";
import { provisionCommand } from "../../../src/cli/commands/provision.ts";
import { DEFAULT_SHUTDOWN_BUDGET_MS, STOP_DELAY_RESERVE_MS } from "../../../src/manager/index.ts";
import { MODULE_GRACE_SECONDS, managerDeployment } from "../../../src/provision/release.ts";
import { MAX_PROVISION_STOP_DELAY_MS, ProvisionInputError, resolveOptions, type ProvisionInput } from "../../../src/provision/index.ts";

type Env = { name: string; value?: string }[];

function envOf(input: ProvisionInput, nats = input.nats ?? true): Env {
  const d = managerDeployment(resolveOptions(input), { nats }) as { spec: { template: { spec: { containers: { env: Env }[] } } } };
  return d.spec.template.spec.containers[0]!.env;
}

const valueOf = (env: Env, name: string) => env.find((e) => e.name === name)?.value;

describe("the module container's env", () => {
  test("defaults: stop delay 4000 ms, connect wait 120000 ms with the broker", () => {
    const env = envOf({});
    expect(valueOf(env, "TINYHOST_STOP_DELAY_MS")).toBe("4000");
    expect(valueOf(env, "TINYHOST_NATS_CONNECT_WAIT_MS")).toBe("120000");
  });

  test("without the broker there is no connect wait (the module runs gRPC); the stop delay stays", () => {
    const env = envOf({ nats: false });
    expect(valueOf(env, "TINYHOST_NATS_CONNECT_WAIT_MS")).toBeUndefined();
    expect(valueOf(env, "TINYHOST_STOP_DELAY_MS")).toBe("4000");
  });

  test("the flags' values are written; 0 leaves the variable out (the module's default, as Go)", () => {
    const env = envOf({ stopDelayMs: "2500", natsConnectWaitMs: "30000" });
    expect(valueOf(env, "TINYHOST_STOP_DELAY_MS")).toBe("2500");
    expect(valueOf(env, "TINYHOST_NATS_CONNECT_WAIT_MS")).toBe("30000");
    const off = envOf({ stopDelayMs: "0", natsConnectWaitMs: "0" });
    expect(off.map((e) => e.name)).not.toContain("TINYHOST_STOP_DELAY_MS");
    expect(off.map((e) => e.name)).not.toContain("TINYHOST_NATS_CONNECT_WAIT_MS");
  });

  test("the grace period leaves room for the whole shutdown budget, and the largest delay leaves the drains their reserve", () => {
    expect(MODULE_GRACE_SECONDS * 1000).toBeGreaterThanOrEqual(DEFAULT_SHUTDOWN_BUDGET_MS);
    expect(MAX_PROVISION_STOP_DELAY_MS + STOP_DELAY_RESERVE_MS).toBeLessThanOrEqual(DEFAULT_SHUTDOWN_BUDGET_MS);
  });
});

describe("the startup probe", () => {
  type Container = { startupProbe?: unknown; livenessProbe: unknown };
  const containerOf = (input: ProvisionInput, nats = input.nats ?? true): Container =>
    (managerDeployment(resolveOptions(input), { nats }) as { spec: { template: { spec: { containers: Container[] } } } }).spec.template.spec.containers[0]!;

  test("with a connect wait it covers the wait plus 30 s, so the liveness probe cannot restart a waiting module", () => {
    expect(containerOf({}).startupProbe).toEqual({ httpGet: { path: "/healthz", port: 8081 }, periodSeconds: 5, failureThreshold: 30 });
    expect(containerOf({ natsConnectWaitMs: "600000" }).startupProbe).toMatchObject({ failureThreshold: 126 });
  });

  test("without a wait or without the broker there is none (the chart's probes)", () => {
    expect(containerOf({ natsConnectWaitMs: "0" }).startupProbe).toBeUndefined();
    expect(containerOf({ nats: false }).startupProbe).toBeUndefined();
  });
});

describe("bad values are refused naming the flag and the value", () => {
  function refusal(input: ProvisionInput): ProvisionInputError {
    try {
      resolveOptions(input);
    } catch (e) {
      if (e instanceof ProvisionInputError) return e;
      throw e;
    }
    throw new Error("expected a ProvisionInputError");
  }

  test("--stop-delay-ms: not digits, or above 5000", () => {
    for (const raw of ["5001", "-1", "1e3", "0x10", " 4000", "4s", ""]) {
      const e = refusal({ stopDelayMs: raw });
      expect(e.field).toBe("--stop-delay-ms");
      expect(e.message).toContain(JSON.stringify(raw));
    }
  });

  test("--nats-connect-wait-ms: not digits, or above 600000", () => {
    for (const raw of ["600001", "-5", "2m", "1.5"]) {
      const e = refusal({ natsConnectWaitMs: raw });
      expect(e.field).toBe("--nats-connect-wait-ms");
      expect(e.message).toContain(JSON.stringify(raw));
    }
  });
});

describe("tinyhost provision --dry-run", () => {
  const write = process.stdout.write;
  const error = console.error;
  afterEach(() => {
    process.stdout.write = write;
    console.error = error;
  });

  async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
    let out = "";
    let err = "";
    process.stdout.write = ((chunk: string) => {
      out += chunk;
      return true;
    }) as typeof process.stdout.write;
    console.error = (msg: string) => void (err += msg);
    try {
      return { code: await provisionCommand.run(["--dry-run", ...args]), out, err };
    } finally {
      process.stdout.write = write;
      console.error = error;
    }
  }

  test("parses --stop-delay-ms and --nats-connect-wait-ms into the Deployment", async () => {
    const { code, out } = await run(["--stop-delay-ms", "3000", "--nats-connect-wait-ms=60000"]);
    expect(code).toBe(0);
    const deployment = YAML.parseAllDocuments(out)
      .map((d) => d.toJS())
      .find((o) => o?.kind === "Deployment" && o.metadata.name === "tinyhost-controller-manager");
    const env: Env = deployment.spec.template.spec.containers[0].env;
    expect(valueOf(env, "TINYHOST_STOP_DELAY_MS")).toBe("3000");
    expect(valueOf(env, "TINYHOST_NATS_CONNECT_WAIT_MS")).toBe("60000");
  });

  test("exits 2 on a bad value, naming the flag and the value", async () => {
    const r = await run(["--stop-delay-ms", "9000"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("--stop-delay-ms");
    expect(r.err).toContain('"9000"');
    const w = await run(["--nats-connect-wait-ms", "soon"]);
    expect(w.code).toBe(2);
    expect(w.err).toContain("--nats-connect-wait-ms");
    expect(w.err).toContain('"soon"');
  });
});
