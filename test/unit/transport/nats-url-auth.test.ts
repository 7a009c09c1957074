/**
 * Credentials in a NATS URL, read as Go's nats.go reads them (src/transport/nats/connect.ts): a user
 * name alone is a token — `TINY_NATS_URL=nats://$(NATS_TOKEN)@tinysystems-nats.<ns>.svc:4222` as
 * `provision` and the chart write it; nats.js would send it as a user and the broker refuse it.
 */
import { describe, expect, test } from "bun:test";
import { natsUrlAuth } from "../../../src/transport/nats/connect.ts";

describe("natsUrlAuth", () => {
  test("a user name alone is the token; the servers lose their credentials", () => {
    expect(natsUrlAuth("nats://s3cr%40t@tinysystems-nats.prod.svc:4222")).toEqual({ servers: ["nats://tinysystems-nats.prod.svc:4222"], token: "s3cr@t" });
  });

  test("user and password stay user and password; the first credentials of a list win", () => {
    expect(natsUrlAuth("nats://ana:pw@a:4222, nats://tok@b:4222")).toEqual({ servers: ["nats://a:4222", "nats://b:4222"], user: "ana", pass: "pw" });
  });

  test("no credentials: the URLs as given", () => {
    expect(natsUrlAuth("nats://127.0.0.1:4222,127.0.0.1:4223")).toEqual({ servers: ["nats://127.0.0.1:4222", "127.0.0.1:4223"] });
  });
});
