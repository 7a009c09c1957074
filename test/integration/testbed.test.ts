/**
 * The test bed itself: the real apiserver accepts both test users and the suite's nats-server
 * survives a restart on the same port.
 */
import { describe, expect, test } from "bun:test";
import { getControlPlane } from "../support/control-plane.ts";
import { startNats } from "../support/nats.ts";

describe("test bed", () => {
  test("the apiserver authenticates the token user as admin", async () => {
    const cp = await getControlPlane();
    const res = await cp.request("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {
      apiVersion: "authentication.k8s.io/v1",
      kind: "SelfSubjectReview",
    });
    expect(res.status).toBe(201);
    const review = (await res.json()) as { status: { userInfo: { username: string; groups: string[] } } };
    expect(review.status.userInfo.username).toBe("admin");
    expect(review.status.userInfo.groups).toContain("system:masters");
  });

  test("the apiserver authenticates the client-certificate user", async () => {
    const cp = await getControlPlane();
    const res = await fetch(`${cp.server}/apis/authentication.k8s.io/v1/selfsubjectreviews`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" }),
      tls: { ca: cp.caPem, cert: cp.clientCertPem, key: cp.clientKeyPem },
    });
    expect(res.status).toBe(201);
    const review = (await res.json()) as { status: { userInfo: { username: string } } };
    expect(review.status.userInfo.username).toBe("admin");
  });

  test("an unauthenticated request is not treated as admin", async () => {
    const cp = await getControlPlane();
    const res = await fetch(`${cp.server}/api/v1/namespaces`, { tls: { ca: cp.caPem } });
    expect(res.status).toBe(403);
  });

  test("newNamespace gives each caller a distinct namespace", async () => {
    const cp = await getControlPlane();
    const a = await cp.newNamespace("testbed");
    const b = await cp.newNamespace("testbed");
    expect(a).not.toBe(b);
    const res = await cp.request("GET", `/api/v1/namespaces/${a}`);
    expect(res.status).toBe(200);
  });

  test("nats-server restarts on the same port with its JetStream store", async () => {
    const nats = await startNats();
    try {
      const before = (await (await fetch(`http://127.0.0.1:${nats.monitorPort}/varz`)).json()) as { port: number; server_id: string };
      await nats.restart();
      const after = (await (await fetch(`http://127.0.0.1:${nats.monitorPort}/varz`)).json()) as {
        port: number;
        server_id: string;
        jetstream?: { config?: { store_dir?: string } };
      };
      expect(after.port).toBe(before.port);
      expect(after.jetstream?.config?.store_dir).toContain(nats.storeDir);
    } finally {
      await nats.dispose();
    }
  });
});
