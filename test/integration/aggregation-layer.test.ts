/**
 * The test control plane's aggregation layer (test/support/control-plane.ts `aggregationLayer`),
 * which KEDA's metrics adapter needs to serve external.metrics.k8s.io (docs/operations.md §14): the
 * apiserver publishes the front-proxy CA and the allowed client name in
 * kube-system/extension-apiserver-authentication (what an extension apiserver reads to trust
 * proxied requests), and serves the APIService API the adapter registers through.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startControlPlane, type OwnedControlPlane } from "../support/control-plane.ts";
import { FRONT_PROXY_CLIENT } from "../support/pki.ts";
import { until } from "../support/until.ts";

let cp: OwnedControlPlane;

beforeAll(async () => {
  cp = await startControlPlane({ aggregationLayer: true });
}, 120_000);

afterAll(async () => {
  await cp?.stop();
});

test("extension-apiserver-authentication carries the front-proxy CA and allowed name; APIServices can be registered", async () => {
  let data: Record<string, string> = {};
  await until(
    "the apiserver publishes extension-apiserver-authentication",
    async () => {
      const res = await cp.request("GET", "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication");
      if (!res.ok) return false;
      data = ((await res.json()) as { data: Record<string, string> }).data;
      return data["requestheader-client-ca-file"] !== undefined;
    },
    60_000,
  );
  expect(JSON.parse(data["requestheader-allowed-names"]!)).toEqual([FRONT_PROXY_CLIENT]);
  expect(data["requestheader-client-ca-file"]!.trim()).toBe(readFileSync(join(cp.dir, "pki", "front-proxy-ca.crt"), "utf8").trim());
  const apis = await cp.request("GET", "/apis/apiregistration.k8s.io/v1/apiservices");
  expect(apis.ok).toBe(true);
});
