/**
 * Property fuzzing of the wire codecs: the NATS hop headers (src/transport/nats/wire.ts) and the
 * gRPC message codec (src/transport/grpc/codec.ts). A hop survives encode → decode unchanged, and
 * any headers a peer could send decode or fail with WireDecodeError — never another exception.
 */
import { describe, expect, test } from "bun:test";
import { headers as natsHeaders } from "@nats-io/transport-node";
import fc from "fast-check";
import { msgFromRequest, requestFromMsg } from "../../../src/transport/grpc/codec.ts";
import { WireDecodeError } from "../../../src/transport/nats/errors.ts";
import { decodeHop, decodeReply, encodeHop, encodeReply } from "../../../src/transport/nats/wire.ts";
import type { Msg } from "../../../src/core/hop.ts";
import { fail, ok } from "../../../src/core/result.ts";
import { coded } from "../../../src/core/errors.ts";
import { runs } from "./runs.ts";

const text = fc.string({ maxLength: 40 });
const nodePort = fc.tuple(fc.stringMatching(/^[a-z0-9][a-z0-9.-]{0,30}$/), fc.stringMatching(/^[a-z_][a-z0-9_]{0,10}$/)).map(([n, p]) => `${n}:${p}`);
const MSG = fc.record({
  edgeId: fc.stringMatching(/^[A-Za-z0-9_-]{0,20}$/),
  from: fc.oneof(fc.constant(""), fc.constant("signal"), nodePort),
  to: nodePort,
  data: fc.uint8Array({ maxLength: 64 }),
  depth: fc.nat({ max: 300 }),
  runId: fc.option(fc.uuid(), { nil: undefined }),
});

describe("NATS wire fuzzing", () => {
  test("encodeHop → decodeHop keeps edge, from, to, depth and the body", () => {
    fc.assert(
      fc.property(MSG, (msg) => {
        const m: Msg = { ...msg };
        if (m.runId === undefined) delete m.runId;
        const h = encodeHop(m);
        const back = decodeHop(h, msg.data).msg;
        expect([back.edgeId, back.from, back.to, back.depth]).toEqual([msg.edgeId, msg.from, msg.to, msg.depth]);
        expect(new Uint8Array(back.data as Uint8Array)).toEqual(msg.data);
      }),
      runs(2000),
    );
  });

  test("any x-* header values a peer sends decode or fail with WireDecodeError naming the header", () => {
    const KEYS = [
      "x-to",
      "x-from",
      "x-edge-id",
      "x-depth",
      "x-mode",
      "x-run-id",
      "x-step-key",
      "x-reply-subject",
      "x-reply-target",
      "x-reply-deadline",
      "x-deadline",
      "X-Depth",
      "x-reply-inbox",
      "traceparent",
    ];
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom(...KEYS),
          fc.oneof(text, fc.integer().map(String), fc.constantFrom("-1", "1e3", "99999999999999999999", " 7", "0x10", "")),
        ),
        fc.uint8Array({ maxLength: 32 }),
        (hdrs, body) => {
          const h = natsHeaders();
          for (const [k, v] of Object.entries(hdrs)) {
            try {
              h.set(k, v);
            } catch {
              return; // nats.js itself refuses the value: it never reaches the wire
            }
          }
          try {
            decodeHop(h, body);
          } catch (e) {
            expect(e).toBeInstanceOf(WireDecodeError);
          }
        },
      ),
      runs(3000),
    );
  });

  test("replies: ok values, empty and coded errors survive encodeReply → decodeReply", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue({ maxDepth: 3 }).map((v) => ({ v })),
          fc.record({ err: fc.string({ minLength: 1, maxLength: 40 }), code: fc.stringMatching(/^[A-Z_]{1,12}$/) }),
        ),
        (c) => {
          if ("v" in c) {
            const e = encodeReply(ok(c.v));
            const r = decodeReply(e.headers, e.data);
            const want = c.v === null ? "empty" : "ok";
            expect(r.kind).toBe(want);
          } else {
            const e = encodeReply(fail(coded(c.code, new Error(c.err))));
            const r = decodeReply(e.headers, e.data);
            expect(r.kind).toBe("fail");
            if (r.kind === "fail") expect((r.error as { code?: string }).code).toBe(c.code);
          }
        },
      ),
      runs(2000),
    );
  });
});

describe("gRPC codec fuzzing", () => {
  test("requestFromMsg → msgFromRequest keeps edge, from, to and payload", () => {
    fc.assert(
      fc.property(MSG, (msg) => {
        const back = msgFromRequest(requestFromMsg({ ...msg }), msg.depth);
        expect([back.edgeId, back.from, back.to, back.depth]).toEqual([msg.edgeId, msg.from, msg.to, msg.depth]);
        expect(new Uint8Array(back.data as Uint8Array)).toEqual(msg.data);
      }),
      runs(2000),
    );
  });

  test("any partial MessageRequest a peer sends becomes a hop without throwing", () => {
    fc.assert(
      fc.property(fc.record({ EdgeID: text, From: text, To: text, Payload: fc.uint8Array({ maxLength: 32 }) }, { requiredKeys: [] }), (req) => {
        const m = msgFromRequest(req, 0);
        expect(typeof m.to).toBe("string");
      }),
      runs(2000),
    );
  });
});
