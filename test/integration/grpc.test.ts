// gRPC fallback transport across processes (runtime-spec §4.7; landscape §D.3 interop matrix):
// Bun client ↔ Bun server in a second process, Bun client ↔ Node server, Node client ↔ Bun server.
// Needs only `node` on PATH; every server is a process this file spawns.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client, credentials, Metadata, type ServiceError } from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { Type } from "typebox";
import { errorCode } from "../../src/core/errors.ts";
import type { Result } from "../../src/core/result.ts";
import { logger } from "../../src/telemetry/log.ts";
import { GrpcCallError, GrpcServer, GrpcTransport, ModuleAddressUnknownError, RemoteHandlerError } from "../../src/transport/grpc/index.ts";
import type { Msg } from "../../src/core/hop.ts";
import { fixtureHandler } from "../fixtures/grpc/behaviour.ts";
import { installTracePropagation, withTraceparent } from "../fixtures/grpc/otel.ts";
import { startFixture, type FixtureServer } from "../fixtures/grpc/spawn.ts";

installTracePropagation();

const quiet = logger.child({ component: "grpc-test" });
quiet.level = "silent";
const BUN = process.execPath;
const HOPS = 250;
const dec = new TextDecoder();

function bytesOf(r: Result): unknown {
  if (r.kind !== "ok") throw new Error(`expected ok, got ${r.kind}: ${r.kind === "fail" ? r.error.message : ""}`);
  expect(r.value).toBeInstanceOf(Uint8Array);
  return JSON.parse(dec.decode(r.value as Uint8Array));
}

function errorOf(r: Result): Error {
  if (r.kind !== "fail") throw new Error(`expected fail, got ${r.kind}`);
  return r.error;
}

/** Polls the fixture's `stats` port until `cancelled` exceeds `before` (or 5 s pass). */
async function cancelledAfter(t: GrpcTransport, to: string, before: number): Promise<number> {
  let n = before;
  for (let i = 0; i < 50 && n <= before; i++) {
    n = (bytesOf(await t.send({ edgeId: "", from: "", to, data: {}, depth: 0 })) as { cancelled: number }).cancelled;
    if (n <= before) await Bun.sleep(100);
  }
  return n;
}

function clientSuite(label: string, start: () => Promise<FixtureServer>): void {
  describe(`Bun client → ${label}`, () => {
    let server: FixtureServer;
    let t: GrpcTransport;
    const to = (port: string) => `dst.peer.fixture-1:${port}`;
    const hop = (port: string, data: unknown, depth = 0): Msg => ({ edgeId: `edge-${port}`, from: "src.bun.sender-1:out", to: to(port), data, depth });

    beforeAll(async () => {
      server = await start();
      t = new GrpcTransport({ log: quiet });
      t.register("peer", `127.0.0.1:${server.port}`);
    });
    afterAll(async () => {
      t?.close();
      await server?.stop();
    });

    test(`${HOPS} concurrent hops deliver payload, from, to, edge id and depth and return the JSON reply`, async () => {
      const results = await Promise.all(Array.from({ length: HOPS }, (_, i) => t.send(hop("echo", { i, s: "héllo ✓" }, i % 4))));
      results.forEach((r, i) => {
        expect(bytesOf(r)).toEqual({
          to: to("echo"),
          from: "src.bun.sender-1:out",
          edgeId: "edge-echo",
          depth: i % 4,
          payload: { i, s: "héllo ✓" },
          trace: null,
        });
      });
    });

    test("depth travels as x-message-depth metadata and is 0 when not sent", async () => {
      expect((bytesOf(await t.send(hop("echo", 1, 9))) as { depth: number }).depth).toBe(9);
      expect((bytesOf(await t.send(hop("echo", 1, 0))) as { depth: number }).depth).toBe(0);
    });

    test("the caller's trace context travels as traceparent metadata", async () => {
      const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
      const r = await withTraceparent(tp, () => t.send(hop("echo", {})));
      expect((bytesOf(r) as { trace: string }).trace).toBe(tp);
    });

    test("a handler error arrives as its text", async () => {
      const err = errorOf(await t.send(hop("fail", "x")));
      expect(err).toBeInstanceOf(RemoteHandlerError);
      expect(err.message).toBe('handler failed: "x"');
    });

    test("a coded handler error arrives with its code and unchanged text", async () => {
      const err = errorOf(await t.send(hop("coded", {})));
      expect(errorCode(err)).toBe("E_TEST");
      expect(err.message).toBe("E_TEST: bad input");
    });

    test("an empty reply resolves to the empty result", async () => {
      expect(await t.send(hop("empty", {}))).toEqual({ kind: "empty" });
    });

    test("a reply to a port with a response schema is the parsed JSON value", async () => {
      const r = await t.send({ ...hop("echo", { a: 1 }), responseSchema: Type.Object({}) });
      expect(r).toEqual({ kind: "ok", value: { to: to("echo"), from: "src.bun.sender-1:out", edgeId: "edge-echo", depth: 0, payload: { a: 1 }, trace: null } });
    });

    test("cancelling the caller unblocks it and cancels the remote handler", async () => {
      const before = (bytesOf(await t.send(hop("stats", {}))) as { cancelled: number }).cancelled;
      const ac = new AbortController();
      const pending = t.send(hop("wait", {}), ac.signal);
      await Bun.sleep(100);
      ac.abort(new Error("caller gave up"));
      const err = errorOf(await pending);
      expect(err).toBeInstanceOf(GrpcCallError);
      expect((err as GrpcCallError).code).toBe("GRPC_CANCELLED");
      expect(await cancelledAfter(t, to("stats"), before)).toBe(before + 1);
    });
  });
}

clientSuite("Bun server in a second process", () => startFixture([BUN, "test/fixtures/grpc/bun-server.ts"]));
clientSuite("Node server (plain @grpc/grpc-js)", () => startFixture(["node", "test/fixtures/grpc/node-server.mjs"]));

describe("Bun client without a peer", () => {
  test("a module with no registered address fails with '<m> module address is unknown'", async () => {
    const t = new GrpcTransport({ log: quiet });
    const r = await t.send({ edgeId: "", from: "", to: "n.ghost.c-1:in", data: 1, depth: 0 });
    const err = errorOf(r);
    expect(err).toBeInstanceOf(ModuleAddressUnknownError);
    expect(err.message).toBe("ghost module address is unknown");
    t.close();
  });

  test("a deregistered module's address is unknown again", async () => {
    const t = new GrpcTransport({ log: quiet, prewarm: false });
    t.register("gone", "127.0.0.1:1");
    t.deregister("gone");
    expect(errorOf(await t.send({ edgeId: "", from: "", to: "n.gone.c-1:in", data: 1, depth: 0 })).message).toBe("gone module address is unknown");
    t.close();
  });

  test("a refused connection resolves to GRPC_UNAVAILABLE naming the module and address", async () => {
    const free = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = free.port;
    free.stop(true);
    const t = new GrpcTransport({ log: quiet });
    t.register("down", `127.0.0.1:${port}`);
    const err = errorOf(await t.send({ edgeId: "", from: "", to: "n.down.c-1:in", data: 1, depth: 0 }));
    expect((err as GrpcCallError).code).toBe("GRPC_UNAVAILABLE");
    expect(err.message).toContain(`module down (127.0.0.1:${port})`);
    t.close();
  });
});

describe("Bun server", () => {
  let server: GrpcServer;
  beforeAll(async () => {
    server = new GrpcServer({ handler: fixtureHandler(), address: "127.0.0.1:0", log: quiet });
    await server.start();
  });
  afterAll(async () => {
    await server.stop(1000);
  });

  test("the health check answers SERVING", async () => {
    const def = loadSync(new URL("../fixtures/grpc/health.proto", import.meta.url).pathname, { keepCase: true, enums: String, defaults: true });
    const check = def["grpc.health.v1.Health"] as unknown as Record<
      string,
      { requestSerialize: (v: object) => Buffer; responseDeserialize: (b: Buffer) => { status: string } }
    >;
    const c = new Client(`127.0.0.1:${server.port}`, credentials.createInsecure());
    const res = await new Promise<{ status: string } | ServiceError>((resolve) =>
      c.makeUnaryRequest(
        "/grpc.health.v1.Health/Check",
        check.Check!.requestSerialize,
        check.Check!.responseDeserialize,
        { service: "" },
        new Metadata(),
        {},
        (err, r) => resolve(err ?? r!),
      ),
    );
    c.close();
    expect(res).toEqual({ status: "SERVING" });
  });

  test("a server on the default ':0' is reachable at its advertised address 127.0.0.1:<bound port>", async () => {
    const s = new GrpcServer({ handler: fixtureHandler(), env: {}, log: quiet });
    const port = await s.start();
    expect(s.advertisedAddress).toBe(`127.0.0.1:${port}`);
    const t = new GrpcTransport({ log: quiet });
    t.register("default", s.advertisedAddress);
    expect(await t.send({ edgeId: "", from: "", to: "n.default.c-1:empty", data: {}, depth: 0 })).toEqual({ kind: "empty" });
    t.close();
    await s.stop(1000);
  });

  test("binding a port already in use fails with GRPC_BIND", async () => {
    const other = new GrpcServer({ handler: fixtureHandler(), address: `127.0.0.1:${server.port}`, log: quiet });
    await expect(other.start()).rejects.toMatchObject({ code: "GRPC_BIND" });
  });

  test("stopping the server cancels an in-flight hop and the caller sees GRPC_CANCELLED", async () => {
    const s = new GrpcServer({ handler: fixtureHandler(), address: "127.0.0.1:0", log: quiet });
    const port = await s.start();
    const t = new GrpcTransport({ log: quiet });
    t.register("stopping", `127.0.0.1:${port}`);
    const pending = t.send({ edgeId: "", from: "", to: "n.stopping.c-1:wait", data: {}, depth: 0 });
    await Bun.sleep(150);
    await s.stop(2000);
    const err = errorOf(await pending);
    expect((err as GrpcCallError).code).toBe("GRPC_CANCELLED");
    expect(err.message).toContain("grpc server shutting down");
    t.close();
  });
});

describe(`Node client (plain @grpc/grpc-js) → Bun server`, () => {
  let server: GrpcServer;
  type Observed = {
    echo: { calls: number; matched: number; mismatches: unknown[] };
    fail: { code: number; details: string; errorCode: string | null } | null;
    coded: { code: number; details: string; errorCode: string | null } | null;
    empty: { data?: string; error?: unknown };
    cancel: { code: number } | null;
    trace: { sent: string; seen: string | null };
    stats: { cancelled: number } | null;
    health: { status?: string; error?: string };
  };
  let seen: Observed;

  beforeAll(async () => {
    server = new GrpcServer({ handler: fixtureHandler(), address: "127.0.0.1:0", log: quiet });
    const port = await server.start();
    const p = Bun.spawn(["node", "test/fixtures/grpc/node-client.mjs", `127.0.0.1:${port}`, String(HOPS)], { stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    if (code !== 0) throw new Error(`node client exited ${code}: ${err}`);
    seen = JSON.parse(out) as Observed;
  }, 60_000);
  afterAll(async () => {
    await server?.stop(1000);
  });

  test(`${HOPS} concurrent calls return the echo of payload, from, to, edge id and depth`, () => {
    expect(seen.echo).toEqual({ calls: HOPS, matched: HOPS, mismatches: [] });
  });

  test("a traceparent in the call metadata reaches the Bun handler's trace context", () => {
    expect(seen.trace.seen).toBe(seen.trace.sent);
  });

  test("a handler error is status UNKNOWN with the error text and no code trailer", () => {
    expect(seen.fail).toEqual({ code: 2, details: 'handler failed: "x"', errorCode: null });
  });

  test("a coded handler error carries its code in the x-error-code trailer", () => {
    expect(seen.coded).toEqual({ code: 2, details: "E_TEST: bad input", errorCode: "E_TEST" });
  });

  test("an empty result is a response with empty Data", () => {
    expect(seen.empty).toEqual({ data: "" });
  });

  test("a cancelled call ends with CANCELLED and cancels the Bun handler", () => {
    expect(seen.cancel?.code).toBe(1);
    expect(seen.stats?.cancelled).toBe(1);
  });

  test("the health check answers SERVING to a Node client", () => {
    expect(seen.health).toEqual({ status: "SERVING" });
  });
});
