/**
 * `npm run cluster:up`'s command line (test/support/cluster-up-args.ts): `--keda` rides on `--real`,
 * and the script itself refuses `--keda` alone before it starts anything.
 */
import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { parseClusterUpArgs } from "../support/cluster-up-args.ts";
import { kedaResolvConf } from "../support/keda.ts";

const ROOT = resolve(import.meta.dir, "../..");

describe("cluster:up arguments", () => {
  test("nothing, --real, and --real --keda in either order", () => {
    expect(parseClusterUpArgs([])).toEqual({ real: false, keda: false });
    expect(parseClusterUpArgs(["--real"])).toEqual({ real: true, keda: false });
    expect(parseClusterUpArgs(["--real", "--keda"])).toEqual({ real: true, keda: true });
    expect(parseClusterUpArgs(["--keda", "--real"])).toEqual({ real: true, keda: true });
  });

  test("--keda without --real is refused, naming the command that works", () => {
    expect(() => parseClusterUpArgs(["--keda"])).toThrow("--keda needs --real");
    expect(() => parseClusterUpArgs(["--keda"])).toThrow("npm run cluster:up -- --real --keda");
  });

  test("an unknown argument is named", () => {
    expect(() => parseClusterUpArgs(["--real", "--kdea"])).toThrow('unknown argument "--kdea"');
  });

  test("the script exits 2 with the message on --keda alone, before starting anything", () => {
    const r = Bun.spawnSync([process.execPath, "test/support/cluster-up.ts", "--keda"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    expect({ code: r.exitCode, stderr: r.stderr.toString().trim(), stdout: r.stdout.toString() }).toEqual({
      code: 2,
      stderr: "cluster:up: --keda needs --real: KEDA scales Deployments, and only the real node runs their pods (npm run cluster:up -- --real --keda)",
      stdout: "",
    });
  });
});

describe("KEDA's resolv.conf under cluster:up --keda (test/support/keda.ts)", () => {
  test("a pod's in namespace keda, pointed at the node's CoreDNS", () => {
    expect(kedaResolvConf("10.213.1.1")).toBe("nameserver 10.213.1.1\nsearch keda.svc.cluster.local svc.cluster.local cluster.local\noptions ndots:5\n");
  });

  test("a DNS address that is not IPv4 is refused with the value", () => {
    expect(() => kedaResolvConf("coredns")).toThrow('clusterDns must be an IPv4 address, got "coredns"');
  });
});
