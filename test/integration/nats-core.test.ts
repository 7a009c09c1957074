/**
 * Core NATS transport against a real nats-server (runtime-spec §4.2, §4.3): round trips, reply
 * encodings, cancellation, concurrency, nested same-module requests, queue groups across two
 * processes, a broker restart, max_payload, no-responders vs timeout, malformed messages.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { headers, type NatsConnection } from "@nats-io/transport-node";
import { coded, errorCode } from "../../src/core/errors.ts";
import { empty, fail, ok, type Result } from "../../src/core/result.ts";
import { connectNats } from "../../src/transport/nats/connect.ts";
import { CoreNatsTransport } from "../../src/transport/nats/core.ts";
import { NoRespondersError, PayloadTooLargeError, RemoteCodedError, RequestCancelledError, RequestTimeoutError } from "../../src/transport/nats/errors.ts";
import type { Msg } from "../../src/core/hop.ts";
import { startNats, type NatsServer } from "../support/nats.ts";

const td = new TextDecoder();
const json = (r: Result): unknown => {
  if (r.kind !== "ok") throw new Error(`expected ok, got ${r.kind}${r.kind === "fail" ? `: ${r.error.message}` : ""}`);
  return JSON.parse(td.decode(r.value as Uint8Array));
};
const hop = (to: string, data: unknown, extra: Partial<Msg> = {}): Msg => ({ edgeId: "e1", from: "h1.mod-a.x-1:out", to, data, depth: 1, ...extra });

let own: NatsServer | undefined;
let url: string;
const conns: NatsConnection[] = [];
const transports: CoreNatsTransport[] = [];

async function conn(u = url): Promise<NatsConnection> {
  const nc = await connectNats(u, { reconnectTimeWaitMs: 200 });
  conns.push(nc);
  return nc;
}

async function transport(module: string, nc?: NatsConnection, requestTimeoutMs?: number): Promise<CoreNatsTransport> {
  const t = new CoreNatsTransport({ nc: nc ?? (await conn()), module, ...(requestTimeoutMs ? { requestTimeoutMs } : {}) });
  transports.push(t);
  return t;
}

let seq = 0;
/** A module name unique to one test, so tests sharing the server never see each other's hops. */
const modName = (p: string) => `${p}-${process.pid}-${++seq}`;

beforeAll(async () => {
  if (process.env.TINYHOST_TEST_NATS_URL) url = process.env.TINYHOST_TEST_NATS_URL;
  else {
    own = await startNats();
    url = own.url;
  }
});

afterAll(async () => {
  await Promise.allSettled(transports.map((t) => t.close(100)));
  await Promise.allSettled(conns.map((c) => c.close()));
  await own?.dispose();
});

describe("core NATS transport", () => {
  test("a hop round-trips: the receiver sees every field and the sender gets its JSON reply", async () => {
    const mod = modName("rt");
    const server = await transport(mod);
    let seen: Msg | undefined;
    server.serve({
      handler: async (msg) => {
        seen = msg;
        return ok({ echo: JSON.parse(td.decode(msg.data as Uint8Array)) });
      },
    });
    await server.nc.flush();
    const client = await transport("mod-a");
    const r = await client.send(hop(`h2.${mod}.y-1:in`, { n: 42 }, { depth: 7 }));
    expect(json(r)).toEqual({ echo: { n: 42 } });
    expect(seen?.from).toBe("h1.mod-a.x-1:out");
    expect(seen?.to).toBe(`h2.${mod}.y-1:in`);
    expect(seen?.edgeId).toBe("e1");
    expect(seen?.depth).toBe(7);
  });

  test("an empty handler result arrives as the empty Result", async () => {
    const mod = modName("empty");
    const server = await transport(mod);
    server.serve({ handler: async () => empty });
    await server.nc.flush();
    const r = await (await transport("mod-a")).send(hop(`h.${mod}.y:in`, {}));
    expect(r).toBe(empty);
  });

  test("a handler error arrives with its text, and a coded error with its code, prefix not doubled", async () => {
    const mod = modName("err");
    const server = await transport(mod);
    server.serve({ handler: async (msg) => (msg.to.endsWith(":coded") ? fail(coded("E_QUOTA", new Error("over quota"))) : fail(new Error("disk on fire"))) });
    await server.nc.flush();
    const client = await transport("mod-a");
    const plain = await client.send(hop(`h.${mod}.y:plain`, {}));
    expect(plain.kind === "fail" && plain.error.message).toBe("disk on fire");
    const c = await client.send(hop(`h.${mod}.y:coded`, {}));
    if (c.kind !== "fail") throw new Error(`expected fail, got ${c.kind}`);
    expect(c.error).toBeInstanceOf(RemoteCodedError);
    expect(c.error.message).toBe("E_QUOTA: over quota");
    expect(errorCode(c.error)).toBe("E_QUOTA");
  });

  test("a throwing handler becomes an x-error reply, not a dropped request", async () => {
    const mod = modName("throw");
    const server = await transport(mod);
    server.serve({
      handler: () => {
        throw new Error("handler threw");
      },
    });
    await server.nc.flush();
    const r = await (await transport("mod-a", undefined, 3000)).send(hop(`h.${mod}.y:in`, {}));
    expect(r.kind === "fail" && r.error.message).toBe("handler threw");
  });

  test("cancelling the caller's signal unblocks it while the receiver still works", async () => {
    const mod = modName("cancel");
    const server = await transport(mod);
    const release = Promise.withResolvers<void>();
    server.serve({ handler: async () => (await release.promise, empty) });
    await server.nc.flush();
    const ac = new AbortController();
    const pending = (await transport("mod-a")).send(hop(`h.${mod}.y:in`, {}), ac.signal);
    setTimeout(() => ac.abort(new Error("user left")), 50);
    const r = await pending;
    release.resolve();
    if (r.kind !== "fail") throw new Error(`expected fail, got ${r.kind}`);
    expect(r.error).toBeInstanceOf(RequestCancelledError);
    expect(r.error.message).toContain(`tinymodule.${mod}.msg`);
    expect(r.error.message).toContain("user left");
  });

  test("100 concurrent requests all get their own reply", async () => {
    const mod = modName("conc");
    const server = await transport(mod);
    server.serve({
      handler: async (msg) => {
        await Bun.sleep(5); // every handler overlaps the others
        return ok(JSON.parse(td.decode(msg.data as Uint8Array)));
      },
    });
    await server.nc.flush();
    const client = await transport("mod-a");
    const rs = await Promise.all(Array.from({ length: 100 }, (_, i) => client.send(hop(`h.${mod}.y:in`, { i }))));
    expect(rs.map((r) => (json(r) as { i: number }).i)).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });

  test("a handler requesting its own module from inside a request does not deadlock", async () => {
    const mod = modName("nest");
    const server = await transport(mod);
    server.serve({
      handler: async (msg) => {
        const depth = msg.depth;
        if (depth >= 5) return ok({ bottom: depth });
        // a nested hop to the same module, over the wire, while this handler is still running
        return server.send(hop(`h.${mod}.y:in`, {}, { depth: depth + 1 }));
      },
    });
    await server.nc.flush();
    const r = await (await transport("mod-a", undefined, 10_000)).send(hop(`h.${mod}.y:in`, {}, { depth: 1 }));
    expect(json(r)).toEqual({ bottom: 5 });
  });

  test("replicas in two processes share one module's requests through the queue group", async () => {
    const mod = modName("lb");
    const child = Bun.spawn([process.execPath, "test/fixtures/nats/queue-receiver.ts", url, mod], { stdout: "pipe", stderr: "inherit" });
    try {
      const reader = child.stdout.getReader();
      const first = await reader.read();
      expect(td.decode(first.value)).toContain("ready");
      const server = await transport(mod);
      server.serve({ handler: async () => ok({ pid: process.pid }) });
      await server.nc.flush();
      const client = await transport("mod-a");
      const rs = await Promise.all(Array.from({ length: 200 }, () => client.send(hop(`h.${mod}.y:in`, {}))));
      const byPid = new Map<number, number>();
      for (const r of rs) {
        const pid = (json(r) as { pid: number }).pid;
        byPid.set(pid, (byPid.get(pid) ?? 0) + 1);
      }
      expect([...byPid.keys()].sort()).toEqual([process.pid, child.pid].sort());
      expect((byPid.get(process.pid) ?? 0) + (byPid.get(child.pid) ?? 0)).toBe(200);
    } finally {
      child.kill("SIGTERM");
      await child.exited;
    }
  }, 30_000);

  test("no responders and timeout are different errors naming the subject", async () => {
    const client = await transport("mod-a", undefined, 300);
    const nobody = modName("nobody");
    const a = await client.send(hop(`h.${nobody}.y:in`, {}));
    if (a.kind !== "fail") throw new Error(`expected fail, got ${a.kind}`);
    expect(a.error).toBeInstanceOf(NoRespondersError);
    expect(a.error.message).toContain(`tinymodule.${nobody}.msg`);

    const slow = modName("slow");
    const server = await transport(slow);
    const release = Promise.withResolvers<void>();
    server.serve({ handler: async () => (await release.promise, empty) });
    await server.nc.flush();
    const b = await client.send(hop(`h.${slow}.y:in`, {}));
    release.resolve();
    if (b.kind !== "fail") throw new Error(`expected fail, got ${b.kind}`);
    expect(b.error).toBeInstanceOf(RequestTimeoutError);
    expect(b.error.message).toContain(`tinymodule.${slow}.msg`);
    expect(b.error.message).toContain("300 ms");
  });

  test("a malformed incoming message gets an x-error reply and the receiver keeps serving", async () => {
    const mod = modName("bad");
    const server = await transport(mod);
    server.serve({ handler: async () => ok({ fine: true }) });
    await server.nc.flush();
    const raw = await conn();
    const h = headers();
    h.set("x-to", `h.${mod}.y:in`);
    h.set("x-message-depth", "deep");
    const bad = await raw.request(`tinymodule.${mod}.msg`, new TextEncoder().encode("{}"), { timeout: 2000, headers: h });
    expect(bad.headers?.get("x-error")).toContain("x-message-depth");
    const noTo = await raw.request(`tinymodule.${mod}.msg`, new TextEncoder().encode("{}"), { timeout: 2000, headers: headers() });
    expect(noTo.headers?.get("x-error")).toContain("x-to");
    const good = await (await transport("mod-a")).send(hop(`h.${mod}.y:in`, {}));
    expect(json(good)).toEqual({ fine: true });
  });

  test("system messages reach every pod and carry the leader flag", async () => {
    const mod = modName("sys");
    const leaders: boolean[] = [];
    const a = await transport(mod);
    const b = await transport(mod);
    a.serve({ handler: async () => empty, isLeader: () => true, system: async (_m, _s, leader) => (leaders.push(leader), ok({ pod: "a" })) });
    b.serve({ handler: async () => empty, isLeader: () => false, system: async (_m, _s, leader) => (leaders.push(leader), ok({ pod: "b" })) });
    await a.nc.flush();
    await b.nc.flush();
    const raw = await conn();
    const h = headers();
    h.set("x-to", `h.${mod}.y:_control`);
    h.set("x-from", "signal");
    const replies = raw.requestMany(`tinymodule.${mod}.sysmsg`, new TextEncoder().encode('{"click":1}'), {
      strategy: "count",
      maxMessages: 2,
      maxWait: 3000,
      headers: h,
    });
    const pods: string[] = [];
    for await (const m of await replies) pods.push((JSON.parse(td.decode(m.data)) as { pod: string }).pod);
    expect(pods.sort()).toEqual(["a", "b"]);
    expect(leaders.sort()).toEqual([false, true]);
  });
});

describe("core NATS transport with its own server", () => {
  test("a payload over max_payload is refused before sending, naming both sizes", async () => {
    const small = await startNats({ maxPayload: 1024, jetstream: false });
    try {
      const nc = await connectNats(small.url);
      try {
        const client = new CoreNatsTransport({ nc, module: "mod-a", requestTimeoutMs: 1000 });
        const r = await client.send(hop("h.mod-big.y:in", { blob: "x".repeat(2000) }));
        if (r.kind !== "fail") throw new Error(`expected fail, got ${r.kind}`);
        expect(r.error).toBeInstanceOf(PayloadTooLargeError);
        expect(r.error.message).toMatch(/message is \d+ bytes, server max_payload is 1024 bytes/);
        expect((r.error as PayloadTooLargeError).sizeBytes).toBeGreaterThan(2000);
      } finally {
        await nc.close();
      }
    } finally {
      await small.dispose();
    }
  });

  test("a reply over max_payload fails the caller at once with PAYLOAD_TOO_LARGE instead of a timeout", async () => {
    const small = await startNats({ maxPayload: 1024, jetstream: false });
    try {
      const ncServer = await connectNats(small.url);
      const ncClient = await connectNats(small.url);
      try {
        const server = new CoreNatsTransport({ nc: ncServer, module: "mod-big" });
        server.serve({ handler: async () => ok({ blob: "x".repeat(4000) }) });
        await ncServer.flush();
        const client = new CoreNatsTransport({ nc: ncClient, module: "mod-a", requestTimeoutMs: 10_000 });
        const t0 = performance.now();
        const r = await client.send(hop("h.mod-big.y:in", {}));
        if (r.kind !== "fail") throw new Error(`expected fail, got ${r.kind}`);
        expect(errorCode(r.error)).toBe("PAYLOAD_TOO_LARGE");
        expect(r.error.message).toMatch(/message is \d+ bytes, server max_payload is 1024 bytes/);
        expect(performance.now() - t0).toBeLessThan(10_000); // not the request timeout
        await server.close(100);
      } finally {
        await Promise.allSettled([ncServer.close(), ncClient.close()]);
      }
    } finally {
      await small.dispose();
    }
  });

  test("after a nats-server restart, subscriptions resume and requests succeed without restarting the process", async () => {
    const srv = await startNats({ jetstream: false });
    try {
      const ncServer = await connectNats(srv.url, { reconnectTimeWaitMs: 100 });
      const ncClient = await connectNats(srv.url, { reconnectTimeWaitMs: 100 });
      try {
        const server = new CoreNatsTransport({ nc: ncServer, module: "mod-r" });
        server.serve({ handler: async () => ok({ alive: true }) });
        await ncServer.flush();
        const client = new CoreNatsTransport({ nc: ncClient, module: "mod-a", requestTimeoutMs: 500 });
        expect(json(await client.send(hop("h.mod-r.y:in", {})))).toEqual({ alive: true });

        await srv.restart();
        // The same transport objects, the same subscriptions: keep asking until the broker is back.
        const deadline = Date.now() + 20_000;
        let last: Result = empty;
        while (Date.now() < deadline) {
          last = await client.send(hop("h.mod-r.y:in", {}));
          if (last.kind === "ok") break;
          await Bun.sleep(100);
        }
        expect(json(last)).toEqual({ alive: true });
        await server.close(100);
      } finally {
        await Promise.allSettled([ncServer.close(), ncClient.close()]);
      }
    } finally {
      await srv.dispose();
    }
  }, 40_000);
});
