/**
 * `provision --autoscale` asks the apiserver's discovery for KEDA's API before it writes anything
 * (src/provision/scaling.ts `checkKedaInstalled`): no `keda.sh/v1alpha1` group, or a group without
 * `scaledobjects` (or `triggerauthentications` when a TriggerAuthentication is to be applied), is
 * refused with one message and no other request. The same against a real apiserver:
 * test/integration/provision.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { KubeApiError, type KubeClient } from "../../../src/k8s/client/index.ts";
import { KedaMissingError, provision, resolveOptions, type ProvisionInput } from "../../../src/provision/index.ts";
import { checkKedaInstalled } from "../../../src/provision/scaling.ts";

/** A client whose discovery answers `group` (undefined = 404) and that records every call; any other call fails the test by throwing. */
function fakeKube(group: { resources: { name: string }[] } | undefined) {
  const calls: string[] = [];
  const kube = new Proxy({} as KubeClient, {
    get(_t, prop: string) {
      return async (...args: unknown[]) => {
        const req = args[0] as { method?: string; path?: string };
        calls.push(prop === "request" ? `${req.method} ${req.path}` : prop);
        if (prop !== "request") throw new Error(`unexpected ${prop} before the KEDA check passed`);
        if (group === undefined) throw new KubeApiError({ verb: "GET", path: req.path ?? "", status: 404 });
        return group;
      };
    },
  });
  return { kube, calls };
}

const INPUT: ProvisionInput = { namespace: "prod", name: "shop", image: "ghcr.io/acme/shop:1.2.0", autoscale: "min=0" };
const MESSAGE = "KEDA is not installed in this cluster (no scaledobjects.keda.sh): install KEDA or drop --autoscale";

describe("provision --autoscale without KEDA", () => {
  test("no keda.sh group: refused before any other request", async () => {
    const { kube, calls } = fakeKube(undefined);
    const err = await provision(kube, resolveOptions(INPUT)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KedaMissingError);
    expect((err as Error).message).toBe(MESSAGE);
    expect(calls).toEqual(["GET /apis/keda.sh/v1alpha1"]);
  });

  test("a group without scaledobjects, or without triggerauthentications when a TriggerAuthentication is asked for", async () => {
    await expect(checkKedaInstalled(fakeKube({ resources: [{ name: "scaledjobs" }] }).kube)).rejects.toThrow(MESSAGE);
    const onlySo = fakeKube({ resources: [{ name: "scaledobjects" }, { name: "scaledobjects/status" }] }).kube;
    await checkKedaInstalled(onlySo);
    await expect(checkKedaInstalled(onlySo, true)).rejects.toThrow("KEDA is not installed in this cluster (no triggerauthentications.keda.sh)");
    const err = await provision(onlySo, resolveOptions({ ...INPUT, kedaAuthSecret: "mon" })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KedaMissingError);
  });

  test("KEDA served: the check passes and provision goes on to its first write", async () => {
    const { kube, calls } = fakeKube({ resources: [{ name: "scaledobjects" }, { name: "triggerauthentications" }] });
    const err = await provision(kube, resolveOptions(INPUT)).catch((e: unknown) => e);
    expect((err as Error).message).toContain("before the KEDA check passed"); // the fake's refusal of the next call: the check let it through
    expect(calls[0]).toBe("GET /apis/keda.sh/v1alpha1");
    expect(calls.length).toBe(2);
  });

  test("without --autoscale no KEDA request is made", async () => {
    const { kube, calls } = fakeKube(undefined);
    await provision(kube, resolveOptions({ ...INPUT, autoscale: undefined })).catch(() => undefined);
    expect(calls.some((c) => c.includes("keda.sh"))).toBe(false);
  });
});
