/**
 * A broker with token auth, as `tinyhost provision` installs it (`authorization { token }`): the
 * module's `TINY_NATS_URL=nats://<token>@host:4222` authenticates (nats.go reads the URL's user info
 * as the token; nats.js ignores it, so src/transport/nats/connect.ts passes it on), and a URL without
 * the token is refused — the module would fall back to gRPC (runtime-spec §4.1).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connectNats } from "../../src/transport/nats/connect.ts";
import { startNats, type NatsServer } from "../support/nats.ts";

const TOKEN = `tok${Math.random().toString(36).slice(2)}`;
let srv: NatsServer;

beforeAll(async () => {
  srv = await startNats({ jetstream: false, token: TOKEN });
});

afterAll(async () => {
  await srv?.dispose();
});

describe("connectNats against a token-protected broker", () => {
  test("the token in the URL authenticates; without it the broker refuses", async () => {
    const url = new URL(srv.url);
    const nc = await connectNats(`nats://${TOKEN}@${url.host}`);
    expect(nc.isClosed()).toBe(false);
    await nc.close();
    await expect(connectNats(`nats://${url.host}`)).rejects.toThrow(/Authorization Violation/i);
  });
});
