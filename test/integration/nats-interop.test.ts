/**
 * What the real Go peer cannot see of our NATS requests (runtime-spec §4.2, §4.3): the exact
 * header set on the wire — no run headers in core mode, `Nats-Msg-Id` = the edge id, no trace
 * headers without a propagator — read by a hand-written responder with the plain @nats-io client,
 * never through our codec. Everything a Go module observes (bodies, x-empty, x-error(+code),
 * depth, trace, both directions) is proven against the Go peer in go-peer-core.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { headers, type NatsConnection } from "@nats-io/transport-node";
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

describe("our module's request to a Go module", () => {
  test("carries exactly the Go headers on the Go subject (core mode: no run headers, no trace headers without a propagator)", async () => {
    const goModule = `gomod-${process.pid}`;
    const goSide = await conn();
    const seen: Array<Record<string, string[]>> = [];
    const subjects: string[] = [];
    // A hand-written responder: it reads the raw headers, not through our codec.
    const sub = goSide.subscribe(`tinymodule.${goModule}.msg`, {
      queue: goModule,
      callback: (_err, m) => {
        subjects.push(m.subject);
        seen.push(Object.fromEntries([...(m.headers ?? [])].map(([k, v]) => [k, v])));
        m.respond(te.encode(JSON.stringify({ got: JSON.parse(td.decode(m.data)) })));
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

    await ours.send({ ...base, depth: 0, to: `h2.${goModule}.y-1:in`, data: {} });
    expect(seen[1]?.["x-message-depth"]).toBeUndefined(); // depth 0 is not written
  });
});
