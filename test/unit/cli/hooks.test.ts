/**
 * The chart-facing CLI pieces that need no cluster: hook flags (`node:util` parseArgs, last repeated
 * flag wins as in cobra), pre-install's refusal of a reserved namespace before any API call, the
 * service-account identity parsing pre-delete uses, `run` accepting the chart's args with the
 * chart's appended copies, and the in-cluster mount override.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { HookUsageError, parseHookFlags } from "../../../src/cli/hook-flags.ts";
import { preInstallCommand } from "../../../src/cli/commands/pre-install.ts";
import { parseRunClusterFlags } from "../../../src/cli/commands/run-cluster.ts";
import { toolsCommand } from "../../../src/cli/commands/tools.ts";
import { moduleNameFromAccount, parseServiceAccountUser } from "../../../src/provision/hooks/identity.ts";
import { checkNamespaceName, InstallCheckError } from "../../../src/provision/hooks/install-check.ts";
import { SERVICE_ACCOUNT_DIR, serviceAccountDir } from "../../../src/k8s/config/in-cluster.ts";
import { chartRbacValues } from "../../../src/provision/index.ts";
import YAML from "yaml";

describe("hook flags", () => {
  test("accept Go's names and short forms; the last repeated flag wins", () => {
    expect(parseHookFlags(["-n", "a", "--name=b", "--namespace", "ns", "-k", "/k"])).toEqual({ name: "b", namespace: "ns", kubeconfig: "/k", help: false });
  });

  test("refuse an unknown flag, a positional argument and an empty value, naming them", () => {
    expect(() => parseHookFlags(["--nmae", "x"])).toThrow(HookUsageError);
    expect(() => parseHookFlags(["extra"])).toThrow(HookUsageError);
    expect(() => parseHookFlags(["--namespace="])).toThrow("--namespace");
  });
});

describe("pre-install without a cluster", () => {
  const error = console.error;
  afterEach(() => {
    console.error = error;
    delete process.env.RELEASE_NAMESPACE;
  });

  test("refuses RELEASE_NAMESPACE=kube-system with exit 1 and the SDK's message, before any API call", async () => {
    let printed = "";
    console.error = (m: string) => (printed += m);
    process.env.RELEASE_NAMESPACE = "kube-system";
    expect(await preInstallCommand.run(["--kubeconfig", "/nonexistent"])).toBe(1);
    expect(printed.split("\n")[0]).toBe('pre-install: refusing to install into reserved namespace "kube-system". Create a dedicated namespace:');
  });

  test("every reserved namespace and an empty one are refused by name alone", () => {
    for (const ns of ["default", "kube-system", "kube-public", "kube-node-lease", ""]) expect(() => checkNamespaceName(ns)).toThrow(InstallCheckError);
    expect(() => checkNamespaceName("tinysystems")).not.toThrow();
  });
});

describe("pre-delete's module from the service account", () => {
  test("parses system:serviceaccount:<ns>:<name> and nothing else", () => {
    expect(parseServiceAccountUser("system:serviceaccount:prod:shop-controller-manager")).toEqual({ namespace: "prod", name: "shop-controller-manager" });
    expect(parseServiceAccountUser("admin")).toBeUndefined();
  });

  test("the chart's manager account <fullname>-controller-manager names module <fullname>", () => {
    expect(moduleNameFromAccount("shop-tinysystems-operator-controller-manager")).toBe("shop-tinysystems-operator");
    expect(moduleNameFromAccount("shop-pre-install")).toBeUndefined();
    expect(moduleNameFromAccount("-controller-manager")).toBeUndefined();
  });
});

describe("run under the chart", () => {
  test("accepts the chart's args followed by its appended --name/--version/--namespace (the last wins)", () => {
    const args = [
      "--grpc-server-bind-address=:8483",
      "--health-probe-bind-address=:8081",
      "--metrics-bind-address=127.0.0.1:8080",
      "--name=R",
      "--version=1.0.0",
      "--namespace=N",
      "--name=shop",
      "--version=1.2.0",
      "--namespace=prod",
    ];
    expect(parseRunClusterFlags(args)).toMatchObject({
      name: "shop",
      version: "1.2.0",
      namespace: "prod",
      grpcServerBindAddress: ":8483",
      healthProbeBindAddress: ":8081",
      metricsBindAddress: "127.0.0.1:8080",
    });
  });
});

describe("in-cluster mount", () => {
  test("is the kubelet's path unless TINYHOST_SERVICE_ACCOUNT_DIR moves it (tests)", () => {
    expect(serviceAccountDir({})).toBe(SERVICE_ACCOUNT_DIR);
    expect(serviceAccountDir({ TINYHOST_SERVICE_ACCOUNT_DIR: "" })).toBe("/var/run/secrets/kubernetes.io/serviceaccount");
    expect(serviceAccountDir({ TINYHOST_SERVICE_ACCOUNT_DIR: "/tmp/sa" })).toBe("/tmp/sa");
  });
});

describe("tools rbac-values on the bundled components", () => {
  const write = process.stdout.write;
  afterEach(() => {
    process.stdout.write = write;
  });

  test("prints the ExposePort overlay, because http_server takes the client", async () => {
    let out = "";
    process.stdout.write = ((chunk: string) => {
      out += chunk;
      return true;
    }) as typeof process.stdout.write;
    const code = await toolsCommand.run(["rbac-values"]);
    process.stdout.write = write;
    expect(code).toBe(0);
    expect(YAML.parse(out)).toEqual(chartRbacValues([{ name: "http_server", usesClient: true }]));
  });

  test("an unknown tool is a usage error", async () => {
    const error = console.error;
    console.error = () => {};
    try {
      expect(await toolsCommand.run(["rbac-frobnicate"])).toBe(2);
    } finally {
      console.error = error;
    }
  });
});
