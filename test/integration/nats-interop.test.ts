/**
 * Wire interop with the Go module (runtime-spec §4.2, §4.3): the tests play the Go side with the
 * plain @nats-io client, setting subjects and headers by hand from the spec — never through our
 * codec — and check that our module answers (and asks) exactly as Go does.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { headers, type NatsConnection } from "@nats-io/transport-node";
import { coded, defineComponent, fail, ok, source, target, Type, type TinyNode } from "../../src/sdk/index.ts";
import { errorCode } from "../../src/sdk/errors.ts";
import { Scheduler } from "../../src/runtime/scheduler/scheduler.ts";
import { connectNats } from "../../src/transport/nats/connect.ts";
import { CoreNatsTransport } from "../../src/transport/nats/core.ts";
import { startNats, type NatsServer } from "../support/nats.ts";

const te = new TextEncoder();
const td = new TextDecoder();
let own: NatsServer | undefined;
let url: string;
const conns: NatsConnection[] = [];
const closers: Array<() => Promise<void>> = [];

async function conn(): Promise<NatsConnection> {
  const nc = await connectNats(url);
  conns.push(nc);
  return nc;
}

beforeAll(async () => {
  if (process.env.TINYHOST_TEST_NATS_URL) url = process.env.TINYHOST_TEST_NATS_URL;
  else {
    own = await startNats({ jetstream: false });
    url = own.url;
  }
});

afterAll(async () => {
  for (const c of closers) await c();
  await Promise.allSettled(conns.map((c) => c.close()));
  await own?.dispose();
});

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64");

/** `doubler`: `in {n}` → `ok({doubled})`; n < 0 → coded error; n == 0 → nothing. */
const doubler = defineComponent({
  info: { name: "doubler", description: "Doubler", info: "doubles n" },
  ports: () => [target("in", Type.Object({ n: Type.Number() }), { default: { n: 1 } }), source("out", Type.Object({ n: Type.Number() }))],
  handle: (_ctx, _output, _port, data) => {
    if (data.n < 0) return fail(coded("E_NEGATIVE", new Error(`n=${data.n} is negative`)));
    if (data.n === 0) return undefined;
    return ok({ doubled: data.n * 2 });
  },
});

describe("a Go module's request to our module", () => {
  test("gets the JSON body, x-empty and x-error(+code) replies Go would send", async () => {
    const module = `interop-${process.pid}`;
    const node = `h9.${module}.doubler-1`;
    const scheduler = new Scheduler({ module, readyTimeoutMs: 1000 });
    scheduler.install(doubler);
    const spec: TinyNode = {
      metadata: { name: node, namespace: "ns", labels: {}, generation: 1 },
      spec: { module, component: "doubler", edges: [], ports: [{ from: "h1.go-mod.src-1:out", port: "in", configuration: b64({ n: "{{$.value}}" }) }] },
      status: {},
    };
    await scheduler.update(spec);
    const t = new CoreNatsTransport({ nc: await conn(), module });
    t.serve({ handler: (msg, signal) => scheduler.handle(msg, signal) });
    closers.push(() => t.close(100));
    await t.nc.flush();

    // The Go sender (internal/transport/nats.go): subject from the target node, headers by hand.
    const goSide = await conn();
    const ask = (value: number) => {
      const h = headers();
      h.set("x-from", "h1.go-mod.src-1:out");
      h.set("x-to", `${node}:in`);
      h.set("x-edge-id", "edge-go-1");
      h.set("x-message-depth", "2");
      h.set("Nats-Msg-Id", "edge-go-1");
      return goSide.request(`tinymodule.${module}.msg`, te.encode(JSON.stringify({ value })), { timeout: 3000, headers: h });
    };

    const body = await ask(21);
    expect(body.headers?.get("x-error") ?? "").toBe("");
    expect(JSON.parse(td.decode(body.data))).toEqual({ doubled: 42 });

    const nothing = await ask(0);
    expect(nothing.headers?.get("x-empty")).toBe("1");
    expect(nothing.data.byteLength).toBe(0);

    const err = await ask(-3);
    expect(err.headers?.get("x-error")).toBe("E_NEGATIVE: n=-3 is negative");
    expect(err.headers?.get("x-error-code")).toBe("E_NEGATIVE");
    expect(err.data.byteLength).toBe(0);
  });
});

describe("our module's request to a Go module", () => {
  test("carries the Go headers on the Go subject and reads the Go reply kinds", async () => {
    const goModule = `gomod-${process.pid}`;
    const goSide = await conn();
    const seen: Array<Record<string, string[]>> = [];
    const subjects: string[] = [];
    // A hand-written Go-style responder: it encodes replies itself (§4.2), not through our codec.
    const sub = goSide.subscribe(`tinymodule.${goModule}.msg`, {
      queue: goModule,
      callback: (_err, m) => {
        subjects.push(m.subject);
        const h = m.headers;
        seen.push(Object.fromEntries([...(h ?? [])].map(([k, v]) => [k, v])));
        const port = (h?.get("x-to") ?? "").split(":")[1];
        const rh = headers();
        if (port === "err") {
          rh.set("x-error", "E_GO: go failed");
          rh.set("x-error-code", "E_GO");
          m.respond(new Uint8Array(), { headers: rh });
        } else if (port === "nil") {
          rh.set("x-empty", "1");
          m.respond(new Uint8Array(), { headers: rh });
        } else {
          m.respond(te.encode(JSON.stringify({ got: JSON.parse(td.decode(m.data)) })));
        }
      },
    });
    closers.push(async () => sub.unsubscribe());
    await goSide.flush();

    const ours = new CoreNatsTransport({ nc: await conn(), module: "tiny-mod", requestTimeoutMs: 3000 });
    const base = { edgeId: "edge-7", from: "h1.tiny-mod.x-1:out", depth: 4, runId: "run-x", stepKey: "run-x.root" };
    const r = await ours.send({ ...base, to: `h2.${goModule}.y-1:in`, data: { a: [1, 2] } });
    expect(r.kind === "ok" && JSON.parse(td.decode(r.value as Uint8Array))).toEqual({ got: { a: [1, 2] } });
    expect(subjects[0]).toBe(`tinymodule.${goModule}.msg`);
    expect(seen[0]).toEqual({
      "x-from": ["h1.tiny-mod.x-1:out"],
      "x-to": [`h2.${goModule}.y-1:in`],
      "x-edge-id": ["edge-7"],
      "x-message-depth": ["4"],
      "Nats-Msg-Id": ["edge-7"],
    }); // core mode: no run headers (runtime-spec §4.3), no trace headers without a propagator

    const zero = await ours.send({ ...base, depth: 0, to: `h2.${goModule}.y-1:nil`, data: {} });
    expect(zero.kind).toBe("empty");
    expect(seen[1]?.["x-message-depth"]).toBeUndefined();

    const e = await ours.send({ ...base, to: `h2.${goModule}.y-1:err`, data: {} });
    if (e.kind !== "fail") throw new Error(`expected fail, got ${e.kind}`);
    expect(e.error.message).toBe("E_GO: go failed");
    expect(errorCode(e.error)).toBe("E_GO");
  });
});
