import { describe, expect, test } from "bun:test";
import { moduleOptionsFrom, parseRunClusterFlags, RunUsageError, runClusterHelp } from "../../../src/cli/commands/run-cluster.ts";
import { version } from "../../../src/core/version.ts";

describe("tinyhost run (cluster) flags", () => {
  test("defaults match the Go CLI, with the version defaulting to the tinyhost version", () => {
    expect(parseRunClusterFlags([])).toEqual({
      name: "main",
      version,
      namespace: "tinysystems",
      also: [],
      healthProbeBindAddress: ":8081",
      grpcServerBindAddress: ":0",
      help: false,
    });
  });

  test("long, short and --flag=value forms are accepted", () => {
    const f = parseRunClusterFlags([
      "-n",
      "tinysystems/common-module-v0",
      "--version=0.1.3",
      "--namespace",
      "ns1",
      "-k",
      "/k",
      "-m",
      "127.0.0.1:8080",
      "-t",
      ":9000",
      "-g",
      ":8483",
      "--components",
      "comp",
    ]);
    expect(f).toMatchObject({
      name: "tinysystems/common-module-v0",
      version: "0.1.3",
      namespace: "ns1",
      kubeconfig: "/k",
      metricsBindAddress: "127.0.0.1:8080",
      healthProbeBindAddress: ":9000",
      grpcServerBindAddress: ":8483",
      components: "comp",
    });
  });

  test("a version with a leading v is refused with a clear error", () => {
    expect(() => parseRunClusterFlags(["--version", "v1.2.3"])).toThrow('--version = "v1.2.3" must not start with "v" (write "1.2.3")');
  });

  test("unknown flags and missing values are usage errors naming the flag", () => {
    expect(() => parseRunClusterFlags(["--nme", "x"])).toThrow(RunUsageError);
    expect(() => parseRunClusterFlags(["--name"])).toThrow("--name needs a value (see tinyhost run --help)");
    expect(() => parseRunClusterFlags(["--name", "--namespace", "x"])).toThrow("--name needs a value (see tinyhost run --help)");
    expect(() => parseRunClusterFlags(["-n", "-k", "/k"])).toThrow("-n needs a value (see tinyhost run --help)");
  });

  test("--also is repeatable and TINYHOST_ALSO (comma-separated) adds to it; a name served twice is refused naming both", () => {
    const f = parseRunClusterFlags(["--name", "mine", "--also", "tinysystems/common-module-v0", "--also=http-module-v0"]);
    expect(f.also).toEqual(["tinysystems/common-module-v0", "http-module-v0"]);
    expect(moduleOptionsFrom(f, { HOSTNAME: "p", TINYHOST_ALSO: " encoding-module-v0 , " }).also).toEqual([
      "tinysystems/common-module-v0",
      "http-module-v0",
      "encoding-module-v0",
    ]);
    expect(moduleOptionsFrom(parseRunClusterFlags([]), { HOSTNAME: "p" }).also).toBeUndefined();
    expect(() => moduleOptionsFrom(parseRunClusterFlags(["--name", "Mine", "--also", "mine"]), { HOSTNAME: "p" })).toThrow(
      '--also = "mine" names module mine, already served as --name "Mine"',
    );
    expect(() => moduleOptionsFrom(parseRunClusterFlags(["--also", "a", "--also", "b"]), { HOSTNAME: "p", TINYHOST_ALSO: "A" })).toThrow(
      'TINYHOST_ALSO = "A" names module a, already served as --also "a"',
    );
    // A name only in the variable is named as coming from it, not from a flag that was never given.
    expect(() => moduleOptionsFrom(parseRunClusterFlags(["--name", "p8"]), { HOSTNAME: "p", TINYHOST_ALSO: "x,p8" })).toThrow(
      'TINYHOST_ALSO = "p8" names module p8, already served as --name "p8"',
    );
    expect(() => moduleOptionsFrom(parseRunClusterFlags(["--also", "x"]), { HOSTNAME: "p", TINYHOST_ALSO: "X" })).toThrow(
      'TINYHOST_ALSO = "X" names module x, already served as --also "x"',
    );
    expect(() => moduleOptionsFrom(parseRunClusterFlags(["--also", "X"]), { HOSTNAME: "p", TINYHOST_ALSO: "y,x" })).toThrow(
      'TINYHOST_ALSO = "x" names module x, already served as --also "X"',
    );
    expect(() => parseRunClusterFlags(["--also"])).toThrow("--also needs a module name");
  });

  test("HOSTNAME is required and named in the error", () => {
    expect(() => moduleOptionsFrom(parseRunClusterFlags([]), {})).toThrow(/HOSTNAME is not set/);
    expect(moduleOptionsFrom(parseRunClusterFlags([]), { HOSTNAME: "pod-1" }).hostname).toBe("pod-1");
  });

  test("lease knobs come from the environment and must be positive integers", () => {
    const o = moduleOptionsFrom(parseRunClusterFlags([]), {
      HOSTNAME: "p",
      TINYHOST_LEASE_DURATION_MS: "4000",
      TINYHOST_RENEW_DEADLINE_MS: "3000",
      TINYHOST_RETRY_PERIOD_MS: "500",
    });
    expect(o.lease).toEqual({ durationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 500 });
    expect(moduleOptionsFrom(parseRunClusterFlags([]), { HOSTNAME: "p" }).lease).toEqual({ durationMs: 15000, renewDeadlineMs: 10000, retryPeriodMs: 2000 });
    expect(() => moduleOptionsFrom(parseRunClusterFlags([]), { HOSTNAME: "p", TINYHOST_LEASE_DURATION_MS: "15s" })).toThrow(
      'TINYHOST_LEASE_DURATION_MS = "15s"',
    );
  });

  test("TINYHOST_STOP_DELAY_MS: 0 by default, decimal ms up to 5000, anything else a usage error naming the value", () => {
    const opts = (v?: string) => moduleOptionsFrom(parseRunClusterFlags([]), { HOSTNAME: "p", ...(v === undefined ? {} : { TINYHOST_STOP_DELAY_MS: v }) });
    expect([opts().stopDelayMs, opts("").stopDelayMs, opts("0").stopDelayMs, opts("3000").stopDelayMs, opts("5000").stopDelayMs]).toEqual([
      0, 0, 0, 3000, 5000,
    ]);
    for (const raw of ["3s", "-1", " 300", "1e3"]) {
      expect(() => opts(raw)).toThrow(RunUsageError);
      expect(() => opts(raw)).toThrow(`TINYHOST_STOP_DELAY_MS = ${JSON.stringify(raw)}`);
    }
    expect(() => opts("5001")).toThrow('TINYHOST_STOP_DELAY_MS = "5001" is more than 5000 ms');
  });

  test("--help lists every flag and the environment", () => {
    for (const s of [
      "--name",
      "--also",
      "TINYHOST_ALSO",
      "--version",
      "--namespace",
      "--kubeconfig",
      "--metrics-bind-address",
      "--health-probe-bind-address",
      "--grpc-server-bind-address",
      "HOSTNAME",
      "TINY_NATS_URL",
      "TINY_NATS_TRANSPORT",
      "SELF_SERVICE_HOST",
      "OTLP_DSN",
    ]) {
      expect(runClusterHelp()).toContain(s);
    }
  });
});
