// Every gRPC hop carries a deadline (issue 21): the edge's retryPolicy.timeoutMs, else 5 minutes.
// It goes on the wire as `grpc-timeout` and comes back as a deadline error. Peers here are real
// sockets: a TCP listener that accepts and never answers, a plain grpc-js server that reports the
// deadline it received, and tinyhost's GrpcServer.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TCPSocketListener } from "bun";
import { Server, ServerCredentials, type sendUnaryData, type ServerUnaryCall } from "@grpc/grpc-js";
import { defineComponent, empty, source, target, Type, type Result } from "tinyhost";
import { Scheduler } from "../../src/runtime/scheduler/index.ts";
import { logger } from "../../src/telemetry/log.ts";
import { GrpcCallError, GrpcDeadlineError, GrpcServer, GrpcTransport } from "../../src/transport/grpc/index.ts";
import { moduleServiceDefinition, type MessageRequestWire, type MessageResponseWire } from "../../src/transport/grpc/proto.ts";
import { DEFAULT_REMOTE_HOP_TIMEOUT_MS, type Msg } from "../../src/core/hop.ts";

const quiet = logger.child({ component: "grpc-deadline-test" });
quiet.level = "silent";
const enc = new TextEncoder();
const dec = new TextDecoder();

function errorOf(r: Result): Error {
  if (r.kind !== "fail") throw new Error(`expected fail, got ${r.kind}`);
  return r.error;
}

const hop = (to: string, deadlineUnixMs?: number): Msg => ({
  edgeId: "e1",
  from: "src.me.sender-1:out",
  to,
  data: { n: 1 },
  depth: 0,
  ...(deadlineUnixMs ? { deadlineUnixMs } : {}),
});

describe("a peer that accepts TCP and never answers", () => {
  let silent: TCPSocketListener;
  let accepted = 0;
  let t: GrpcTransport;
  beforeAll(() => {
    silent = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { open: () => void accepted++, data() {} } });
    t = new GrpcTransport({ log: quiet });
    t.register("silent", `127.0.0.1:${silent.port}`);
  });
  afterAll(() => {
    t.close();
    silent.stop(true);
  });

  test("a hop with a deadline fails with GRPC_DEADLINE_EXCEEDED at its deadline, not before", async () => {
    const t0 = Date.now();
    const err = errorOf(await t.send(hop("n.silent.c-1:in", t0 + 800)));
    const took = Date.now() - t0;
    expect(accepted).toBeGreaterThan(0); // the peer did accept the connection
    expect(err).toBeInstanceOf(GrpcDeadlineError);
    expect((err as GrpcCallError).code).toBe("GRPC_DEADLINE_EXCEEDED");
    expect(err.message).toContain(`module silent (127.0.0.1:${silent.port})`);
    expect(err.message).toMatch(/deadline of (79\d|800) ms/); // measured from the send, a ms or so after t0
    expect(took).toBeGreaterThanOrEqual(790);
    expect(took).toBeLessThan(800 + 5_000); // it ends; before the fix it hung until the caller gave up
  });

  test("a caller's signal aborted by a timeout reads as a deadline error; a plain abort as GRPC_CANCELLED", async () => {
    const timedOut = errorOf(await t.send(hop("n.silent.c-1:in"), AbortSignal.timeout(300)));
    expect((timedOut as GrpcCallError).code).toBe("GRPC_DEADLINE_EXCEEDED");
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error("caller gave up")), 300);
    const cancelled = errorOf(await t.send(hop("n.silent.c-1:in"), ac.signal));
    expect((cancelled as GrpcCallError).code).toBe("GRPC_CANCELLED");
    expect(cancelled.message).toContain("caller gave up");
  });

  test("through the runner: an edge with timeoutMs 700 to the silent module fails EDGE_TIMEOUT at 700 ms", async () => {
    const relay = defineComponent({
      info: { name: "relay", description: "Relay", info: "passes context through" },
      ports: () => [target("in", Type.Object({ context: Type.Any() }), { default: { context: null } }), source("out", Type.Object({ context: Type.Any() }))],
      handle: (_ctx, output, _port, data) => output("out", { context: data.context }),
    });
    const s = new Scheduler({ module: "me", debounceMs: 10, remote: t });
    s.install(relay);
    await s.update({
      metadata: { name: "h.me.relay-1", namespace: "ns", labels: {}, generation: 1 },
      spec: {
        module: "me",
        component: "relay",
        edges: [{ id: "e-silent", port: "out", to: "h.silent.sink-1:in", retryPolicy: { maxAttempts: 3, timeoutMs: 700 } }],
        ports: [],
      },
      status: { metadata: {} },
    });
    const t0 = Date.now();
    const err = errorOf(await s.handle({ edgeId: "", from: "signal", to: "h.me.relay-1:in", data: { context: 1 }, depth: 0 }));
    const took = Date.now() - t0;
    expect((err as { code?: string }).code).toBe("EDGE_TIMEOUT");
    expect(err.message).toBe("edge e-silent to h.silent.sink-1:in: timed out after 700 ms");
    expect(took).toBeGreaterThanOrEqual(690);
    expect(took).toBeLessThan(700 + 5_000);
    await s.stopAll();
  });
});

describe("the deadline on the wire", () => {
  let server: Server;
  let port = 0;
  /** The deadline (unix ms, or Infinity) the server saw on each call, by payload id. */
  const seen = new Map<number, number>();
  beforeAll(async () => {
    server = new Server();
    server.addService(moduleServiceDefinition(), {
      Message: (call: ServerUnaryCall<MessageRequestWire, MessageResponseWire>, cb: sendUnaryData<Partial<MessageResponseWire>>) => {
        const id = (JSON.parse(dec.decode(call.request.Payload)) as { id: number }).id;
        seen.set(id, Number(call.getDeadline()));
        cb(null, { Data: enc.encode("true") });
      },
    });
    port = await new Promise<number>((resolve, reject) =>
      server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
  });
  afterAll(() => {
    server.forceShutdown();
  });

  test("the server sees the hop's deadline; without one, 5 minutes from the send", async () => {
    const t = new GrpcTransport({ log: quiet });
    t.register("peer", `127.0.0.1:${port}`);
    const t0 = Date.now();
    const withDeadline = await t.send({ ...hop("n.peer.c-1:in", t0 + 1_500), data: { id: 1 } });
    const t1 = Date.now();
    const without = await t.send({ ...hop("n.peer.c-1:in"), data: { id: 2 } });
    const t2 = Date.now();
    t.close();
    expect(withDeadline.kind).toBe("ok");
    expect(without.kind).toBe("ok");
    // grpc-timeout has whole-unit precision and the server adds its own receive time: allow 100 ms.
    expect(Math.abs(seen.get(1)! - (t0 + 1_500))).toBeLessThan(100);
    expect(seen.get(2)!).toBeGreaterThan(t1 + DEFAULT_REMOTE_HOP_TIMEOUT_MS - 100);
    expect(seen.get(2)!).toBeLessThan(t2 + DEFAULT_REMOTE_HOP_TIMEOUT_MS + 100);
  });
});

describe("tinyhost's GrpcServer and the caller's deadline", () => {
  test("the handler's signal aborts at the caller's deadline with a deadline error, and the caller gets GRPC_DEADLINE_EXCEEDED", async () => {
    let reason: unknown;
    let abortedAt = 0;
    const server = new GrpcServer({
      address: "127.0.0.1:0",
      log: quiet,
      handler: (_msg, signal) =>
        new Promise<Result>((resolve) => {
          signal!.addEventListener("abort", () => {
            reason = signal!.reason;
            abortedAt = Date.now();
            resolve(empty);
          });
        }),
    });
    const port = await server.start();
    const t = new GrpcTransport({ log: quiet });
    t.register("slow", `127.0.0.1:${port}`);
    const t0 = Date.now();
    const err = errorOf(await t.send(hop("n.slow.c-1:in", t0 + 600)));
    for (let i = 0; i < 50 && !abortedAt; i++) await Bun.sleep(20);
    t.close();
    await server.stop(500);
    expect((err as GrpcCallError).code).toBe("GRPC_DEADLINE_EXCEEDED");
    expect(reason).toBeInstanceOf(GrpcDeadlineError);
    expect(abortedAt - t0).toBeGreaterThanOrEqual(550);
    expect(abortedAt - t0).toBeLessThan(600 + 2_000);
  });
});
