/**
 * Credentials in a NATS URL, read as nats.go reads them (src/transport/nats/connect.ts): the
 * provisioned broker's `nats://$(NATS_TOKEN)@tinysystems-nats.<ns>.svc:4222` must authenticate with
 * the token — nats.js ignores a URL's user info, so the module was refused and fell back to gRPC in
 * a real pod (test/integration/real-faults.test.ts). The connect against a token-protected server:
 * test/integration/nats-token.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { natsUrlAuth } from "../../../src/transport/nats/connect.ts";

describe("natsUrlAuth", () => {
  test("user info without a password is a token; the server loses its user info", () => {
    expect(natsUrlAuth("nats://s3cr3t@tinysystems-nats.prod.svc:4222")).toEqual({ servers: ["nats://tinysystems-nats.prod.svc:4222"], token: "s3cr3t" });
  });

  test("user and password; percent-decoded", () => {
    expect(natsUrlAuth("nats://ann:p%40ss@host:4222")).toEqual({ servers: ["nats://host:4222"], user: "ann", pass: "p@ss" });
  });

  test("a list: every server stripped, the first credentials taken; no credentials, nothing added", () => {
    expect(natsUrlAuth("nats://t1@a:4222, nats://t2@b:4222,nats://c:4222")).toEqual({
      servers: ["nats://a:4222", "nats://b:4222", "nats://c:4222"],
      token: "t1",
    });
    expect(natsUrlAuth("nats://127.0.0.1:4222")).toEqual({ servers: ["nats://127.0.0.1:4222"] });
    expect(natsUrlAuth("host:4222")).toEqual({ servers: ["host:4222"] });
    expect(natsUrlAuth("127.0.0.1:4222,,")).toEqual({ servers: ["127.0.0.1:4222"] });
    expect(natsUrlAuth("tok@10.0.0.5:4222")).toEqual({ servers: ["10.0.0.5:4222"], token: "tok" });
  });
});
