import { expect, test } from "bun:test";
import { natsServers } from "../../../src/transport/nats/connect.ts";

test("a token in the URL (nats://<token>@host, the provisioned broker URL) is sent as the token, as nats.go does", () => {
  expect(natsServers("nats://s3cr3t@tinysystems-nats.tinysystems.svc:4222")).toEqual({
    servers: ["nats://tinysystems-nats.tinysystems.svc:4222"],
    token: "s3cr3t",
  });
});

test("user:pass in the URL become user and password; URLs without user-info pass unchanged", () => {
  expect(natsServers("nats://alice:p%40ss@a:4222, nats://b:4222")).toEqual({ servers: ["nats://a:4222", "nats://b:4222"], user: "alice", pass: "p@ss" });
  expect(natsServers("nats://127.0.0.1:4222")).toEqual({ servers: ["nats://127.0.0.1:4222"] });
  expect(natsServers("127.0.0.1:4222,,")).toEqual({ servers: ["127.0.0.1:4222"] });
  expect(natsServers("tok@10.0.0.5:4222")).toEqual({ servers: ["10.0.0.5:4222"], token: "tok" });
});
