import { describe, expect, test } from "bun:test";
import { DEFAULT_IMAGE, NATS_IMAGE, OTEL_IMAGE, ProvisionInputError, resolveOptions, splitImage } from "../../../src/provision/index.ts";
import { version } from "../../../src/core/version.ts";

function refusal(fn: () => unknown): ProvisionInputError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ProvisionInputError) return e;
    throw e;
  }
  throw new Error("expected a ProvisionInputError");
}

describe("splitImage", () => {
  test("splits at the last colon", () => {
    expect(splitImage("ghcr.io/acme/shop:1.2.3")).toEqual({ repository: "ghcr.io/acme/shop", tag: "1.2.3" });
  });

  test("does not take a registry port for a tag", () => {
    expect(splitImage("registry.local:5000/shop:0.1.0")).toEqual({ repository: "registry.local:5000/shop", tag: "0.1.0" });
    expect(refusal(() => splitImage("registry.local:5000/shop")).field).toBe("--image");
  });

  test("refuses an image without a tag or with a digest", () => {
    expect(refusal(() => splitImage("shop")).message).toContain('"shop"');
    expect(refusal(() => splitImage("shop@sha256:abc")).field).toBe("--image");
  });
});

describe("resolveOptions", () => {
  test("defaults: namespace tinysystems, release tinyhost, this version's image, NATS and OTEL on", () => {
    const o = resolveOptions();
    expect(o).toMatchObject({
      namespace: "tinysystems",
      release: "tinyhost",
      image: DEFAULT_IMAGE,
      version,
      nats: true,
      otel: true,
      natsImage: NATS_IMAGE,
      otelImage: OTEL_IMAGE,
      ingressClass: "nginx",
      ingressSuffix: "",
      withCrHelpers: false,
    });
  });

  test("takes broker and collector images, refusing one that is not an image reference", () => {
    expect(resolveOptions({ natsImage: "tinyhost-nats:2.9.10", otelImage: "localhost/otel:dev" })).toMatchObject({
      natsImage: "tinyhost-nats:2.9.10",
      otelImage: "localhost/otel:dev",
    });
    const nats = refusal(() => resolveOptions({ natsImage: "<registry>/nats:2" }));
    expect(nats.field).toBe("--nats-image");
    expect(nats.message).toContain("<registry>");
    expect(refusal(() => resolveOptions({ otelImage: "" })).field).toBe("--otel-image");
  });

  test("takes the version from the image tag unless given", () => {
    expect(resolveOptions({ image: "acme/shop:2.0.1" }).version).toBe("2.0.1");
    expect(resolveOptions({ image: "acme/shop:dev", version: "2.0.2" }).version).toBe("2.0.2");
  });

  test("refuses a version with a leading v, which run rejects", () => {
    const e = refusal(() => resolveOptions({ image: "acme/shop:v1.0.0" }));
    expect(e.field).toBe("--version");
    expect(e.message).toContain("pass --version");
  });

  test("sanitizes the release name", () => {
    expect(resolveOptions({ name: "Acme/Shop_Module" }).release).toBe("acme-shop-module");
  });

  test("refuses a release too long for <name>-manager-service", () => {
    expect(refusal(() => resolveOptions({ name: "s".repeat(48) })).field).toBe("--name");
    expect(resolveOptions({ name: "s".repeat(47) }).release).toHaveLength(47);
  });

  test("refuses reserved and invalid namespaces", () => {
    expect(refusal(() => resolveOptions({ namespace: "kube-system" })).message).toContain("reserved");
    expect(refusal(() => resolveOptions({ namespace: "Bad_NS" })).field).toBe("--namespace");
  });

  test("refuses an ingress suffix that is not a DNS name", () => {
    expect(refusal(() => resolveOptions({ ingressSuffix: "Apps.Example.com" })).field).toBe("--ingress-suffix");
  });
});

describe("--nats-replicas", () => {
  test("1 by default; 1, 3 and 5 are taken, as numbers or the flag's text", () => {
    expect(resolveOptions().natsReplicas).toBe(1);
    expect([1, "3", 5].map((n) => resolveOptions({ natsReplicas: n }).natsReplicas)).toEqual([1, 3, 5]);
  });

  test("anything else is refused, naming the flag and the value", () => {
    for (const bad of [2, "4", "7", "0", "three", " 3", "0x3", ""]) {
      const e = refusal(() => resolveOptions({ natsReplicas: bad }));
      expect(`${e.field} ${e.message}`).toContain(`--nats-replicas`);
      expect(e.message).toContain(JSON.stringify(bad));
    }
  });
});
