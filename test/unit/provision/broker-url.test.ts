import { describe, expect, test } from "bun:test";
import { KubeApiError, type KubeClient, type KubeObject } from "../../../src/k8s/client/index.ts";
import { brokerUrl, readBrokerUrl, redactBrokerUrl } from "../../../src/provision/index.ts";

/** A client whose `get` answers from a function (unit-test fake). */
function fakeKube(get: (plural: string, name: string, ns?: string) => KubeObject): KubeClient {
  return { get: async (res: { plural: string }, name: string, ns?: string) => get(res.plural, name, ns) } as unknown as KubeClient;
}

const secretWith = (data: Record<string, string> | undefined) => ({ metadata: { name: "tinysystems-nats-auth" }, ...(data ? { data } : {}) });

describe("brokerUrl", () => {
  test("with a token", () => {
    expect(brokerUrl("tinysystems", "abc123")).toBe("nats://abc123@tinysystems-nats.tinysystems.svc:4222");
  });

  test("without a token", () => {
    expect(brokerUrl("tinysystems")).toBe("nats://tinysystems-nats.tinysystems.svc:4222");
  });

  test("percent-encodes a token that is not URL-safe", () => {
    expect(brokerUrl("ns", "a@b/c")).toBe("nats://a%40b%2Fc@tinysystems-nats.ns.svc:4222");
  });

  test("redacts the token for reports", () => {
    expect(redactBrokerUrl("nats://abc@tinysystems-nats.ns.svc:4222")).toBe("nats://***@tinysystems-nats.ns.svc:4222");
    expect(redactBrokerUrl("nats://tinysystems-nats.ns.svc:4222")).toBe("nats://tinysystems-nats.ns.svc:4222");
  });
});

describe("readBrokerUrl", () => {
  test("reads the token from Secret tinysystems-nats-auth in the namespace", async () => {
    const seen: string[] = [];
    const kube = fakeKube((plural, name, ns) => {
      seen.push(`${plural} ${ns}/${name}`);
      return secretWith({ token: Buffer.from("s3cret").toString("base64") });
    });
    expect(await readBrokerUrl(kube, "prod")).toBe("nats://s3cret@tinysystems-nats.prod.svc:4222");
    expect(seen).toEqual(["secrets prod/tinysystems-nats-auth"]);
  });

  test("falls back to the tokenless URL when the Secret is missing", async () => {
    const kube = fakeKube(() => {
      throw new KubeApiError({ verb: "GET", path: "/api/v1/namespaces/prod/secrets/tinysystems-nats-auth", status: 404 });
    });
    expect(await readBrokerUrl(kube, "prod")).toBe("nats://tinysystems-nats.prod.svc:4222");
  });

  test("falls back to the tokenless URL when the token is empty or absent", async () => {
    expect(
      await readBrokerUrl(
        fakeKube(() => secretWith({ token: "" })),
        "prod",
      ),
    ).toBe("nats://tinysystems-nats.prod.svc:4222");
    expect(
      await readBrokerUrl(
        fakeKube(() => secretWith(undefined)),
        "prod",
      ),
    ).toBe("nats://tinysystems-nats.prod.svc:4222");
  });

  test("passes other API errors on", async () => {
    const kube = fakeKube(() => {
      throw new KubeApiError({ verb: "GET", path: "/api/v1/namespaces/prod/secrets/tinysystems-nats-auth", status: 403 });
    });
    await expect(readBrokerUrl(kube, "prod")).rejects.toBeInstanceOf(KubeApiError);
  });
});
