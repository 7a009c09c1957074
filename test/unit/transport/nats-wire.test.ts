import { describe, expect, test } from "bun:test";
import { headers } from "@nats-io/transport-node";
import { coded, CodedError, errorCode, permanent, retryable, shouldRetry } from "../../../src/core/errors.ts";
import { BusyError } from "../../../src/transport/slots.ts";
import { ShuttingDownError } from "../../../src/transport/refusal.ts";
import { empty, fail, ok } from "../../../src/core/result.ts";
import { RemoteCodedError, RemoteError, WireDecodeError } from "../../../src/transport/nats/errors.ts";
import { execKey, msgSubject, stepRecordKey, subjectFor, sysConsumerName, sysmsgSubject } from "../../../src/transport/nats/names.ts";
import {
  decodeHop,
  decodeReply,
  encodeHop,
  encodePayload,
  encodeReply,
  H_BAGGAGE,
  H_DEPTH,
  H_EDGE_ID,
  H_EMPTY,
  H_ERROR,
  H_ERROR_CODE,
  H_FROM,
  H_MODE,
  H_MSG_ID,
  H_REPLY_DEADLINE,
  H_REPLY_INBOX,
  H_REPLY_SUBJECT,
  H_REPLY_TARGET,
  H_RUN_ID,
  H_STEP_KEY,
  H_TO,
  H_TRACEPARENT,
  H_TRACESTATE,
  headerBytes,
  streamAckOf,
} from "../../../src/transport/nats/wire.ts";
import type { Msg } from "../../../src/core/hop.ts";

const te = new TextEncoder();
const td = new TextDecoder();

const durableMsg: Msg = {
  edgeId: "e1",
  from: "h1.mod-a.x-1:out",
  to: "h2.mod-b.y-1:in",
  data: { a: 1 },
  depth: 3,
  mode: "rpc",
  runId: "run-1",
  stepKey: "run-1.0123456789abcdef",
  replySubject: "_INBOX.r",
  replyTarget: "h1.mod-a.x-1:reply",
  replyDeadlineUnixMs: 1700000000123,
};

describe("hop headers", () => {
  test("every header name is the Go wire name", () => {
    expect([
      H_FROM,
      H_TO,
      H_EDGE_ID,
      H_DEPTH,
      H_MODE,
      H_RUN_ID,
      H_STEP_KEY,
      H_REPLY_SUBJECT,
      H_REPLY_TARGET,
      H_REPLY_DEADLINE,
      H_REPLY_INBOX,
      H_ERROR,
      H_ERROR_CODE,
      H_EMPTY,
      H_MSG_ID,
      H_TRACEPARENT,
      H_TRACESTATE,
      H_BAGGAGE,
    ]).toEqual([
      "x-from",
      "x-to",
      "x-edge-id",
      "x-message-depth",
      "x-mode",
      "x-run-id",
      "x-step-key",
      "x-reply-subject",
      "x-reply-target",
      "x-reply-deadline",
      "x-reply-inbox",
      "x-error",
      "x-error-code",
      "x-empty",
      "Nats-Msg-Id",
      "Traceparent",
      "Tracestate",
      "Baggage",
    ]);
  });

  test("a durable hop writes every field as its header", () => {
    const h = encodeHop(durableMsg, {
      durable: true,
      msgId: durableMsg.stepKey,
      replyInbox: "_INBOX.x",
      trace: { traceparent: "00-aa-bb-01", baggage: "k=v" },
    });
    expect(h.get("x-from")).toBe("h1.mod-a.x-1:out");
    expect(h.get("x-to")).toBe("h2.mod-b.y-1:in");
    expect(h.get("x-edge-id")).toBe("e1");
    expect(h.get("x-message-depth")).toBe("3");
    expect(h.get("x-mode")).toBe("rpc");
    expect(h.get("x-run-id")).toBe("run-1");
    expect(h.get("x-step-key")).toBe("run-1.0123456789abcdef");
    expect(h.get("x-reply-subject")).toBe("_INBOX.r");
    expect(h.get("x-reply-target")).toBe("h1.mod-a.x-1:reply");
    expect(h.get("x-reply-deadline")).toBe("1700000000123");
    expect(h.get("x-reply-inbox")).toBe("_INBOX.x");
    expect(h.get("Nats-Msg-Id")).toBe("run-1.0123456789abcdef");
    expect(h.get("Traceparent")).toBe("00-aa-bb-01");
    expect(h.get("Baggage")).toBe("k=v");
  });

  test("trace context is written in Go's http.Header form: Traceparent, Tracestate, Baggage (runtime-spec §17)", () => {
    const h = encodeHop(durableMsg, { trace: { traceparent: "00-aa-bb-01", tracestate: "v=1", baggage: "k=v" } });
    const raw = td.decode(headerBytes(h));
    expect(raw).toContain("\r\nTraceparent: 00-aa-bb-01\r\n");
    expect(raw).toContain("\r\nTracestate: v=1\r\n");
    expect(raw).toContain("\r\nBaggage: k=v\r\n");
    expect(raw).not.toContain("traceparent");
  });

  test("incoming headers are read in any case: Go's Traceparent, a lowercase traceparent, X-To", () => {
    for (const [tp, bg, to, msgId] of [
      ["Traceparent", "Baggage", "x-to", "Nats-Msg-Id"],
      ["traceparent", "baggage", "X-To", "nats-msg-id"],
      ["TRACEPARENT", "BAGGAGE", "X-TO", "NATS-MSG-ID"],
    ] as const) {
      const h = headers();
      h.set(to, "a.b.c:in");
      h.set(tp, "00-aa-bb-01");
      h.set(bg, "k=v");
      h.set(msgId, "m1");
      h.set("X-Message-Depth", "2");
      const d = decodeHop(h, new Uint8Array());
      expect({ to: d.msg.to, depth: d.msg.depth, msgId: d.msgId, trace: d.trace }).toEqual({
        to: "a.b.c:in",
        depth: 2,
        msgId: "m1",
        trace: { traceparent: "00-aa-bb-01", baggage: "k=v" },
      });
    }
  });

  test("depth 0, empty fields and non-durable sends write no header", () => {
    const h = encodeHop({ ...durableMsg, depth: 0, from: "", edgeId: "", mode: "" });
    expect(h.keys().sort()).toEqual(["x-to"]);
  });

  test("header keys keep their exact case on the wire (Go reads them case-sensitively)", () => {
    const h = encodeHop(durableMsg, { msgId: "e1" });
    const raw = td.decode(headerBytes(h));
    expect(raw).toContain("Nats-Msg-Id: e1");
    expect(raw).toContain("x-from: h1.mod-a.x-1:out");
  });

  test("decoding reverses encoding, payload stays raw bytes", () => {
    const h = encodeHop(durableMsg, { durable: true, msgId: "m", replyInbox: "_INBOX.x", trace: { traceparent: "00-aa-bb-01" } });
    const body = encodePayload(durableMsg.data);
    const d = decodeHop(h, body);
    const { data, ...rest } = d.msg;
    const { data: _ignored, ...want } = durableMsg;
    expect(rest).toEqual(want);
    expect(data).toBe(body);
    expect(td.decode(data as Uint8Array)).toBe('{"a":1}');
    expect(d.replyInbox).toBe("_INBOX.x");
    expect(d.msgId).toBe("m");
    expect(d.trace).toEqual({ traceparent: "00-aa-bb-01" });
  });

  test("a message without x-to is malformed", () => {
    expect(() => decodeHop(headers(), te.encode("{}"))).toThrow(WireDecodeError);
    expect(() => decodeHop(undefined, te.encode("{}"))).toThrow(/x-to/);
  });

  test("a non-decimal depth is malformed and names the header and value", () => {
    const h = headers();
    h.set("x-to", "a.b.c:in");
    h.set("x-message-depth", "three");
    expect(() => decodeHop(h, new Uint8Array())).toThrow('header x-message-depth="three"');
  });

  test("an unknown mode is malformed", () => {
    const h = headers();
    h.set("x-to", "a.b.c:in");
    h.set("x-mode", "batch");
    expect(() => decodeHop(h, new Uint8Array())).toThrow(WireDecodeError);
  });
});

describe("payload", () => {
  test("bytes go raw, values as JSON, undefined as null", () => {
    const bytes = te.encode('{"x":1}');
    expect(encodePayload(bytes)).toBe(bytes);
    expect(td.decode(encodePayload({ x: [1, "a"] }))).toBe('{"x":[1,"a"]}');
    expect(td.decode(encodePayload("s"))).toBe('"s"');
    expect(td.decode(encodePayload(undefined))).toBe("null");
  });
});

describe("reply encoding", () => {
  test("reply headers are read in any case (X-Error, X-Error-Code, X-Empty)", () => {
    const e = headers();
    e.set("X-Error", "E: boom");
    e.set("X-Error-Code", "E");
    const r = decodeReply(e, new Uint8Array());
    if (r.kind !== "fail") throw new Error(`expected fail, got ${r.kind}`);
    expect([r.error.message, errorCode(r.error)]).toEqual(["E: boom", "E"]);
    const n = headers();
    n.set("X-Empty", "1");
    expect(decodeReply(n, te.encode("ignored")).kind).toBe("empty");
  });

  test("a refusal (BUSY, SHUTTING_DOWN) is marked x-refused and arrives retryable; relayed further up it is not (issue 21)", () => {
    const busy = encodeReply(fail(retryable(new BusyError("h.m.n-1:in", 4, "queue of 4 full"))));
    expect([busy.headers?.get("x-error-code"), busy.headers?.get("x-refused")]).toEqual(["BUSY", "1"]);
    const down = encodeReply(fail(retryable(new ShuttingDownError("h.m.n-1:in"))));
    expect([down.headers?.get("x-error-code"), down.headers?.get("x-refused")]).toEqual(["SHUTTING_DOWN", "1"]);
    const got = decodeReply(busy.headers, busy.data);
    if (got.kind !== "fail") throw new Error(`expected fail, got ${got.kind}`);
    expect([errorCode(got.error), shouldRetry(got.error)]).toEqual(["BUSY", true]);
    // A module relaying that error upstream keeps the code and text, not the mark: only the edge
    // next to the refusal retries, not every level of a chain.
    const relayed = encodeReply(got);
    expect([relayed.headers?.get("x-error-code"), relayed.headers?.has("x-refused")]).toEqual(["BUSY", false]);
    const upstream = decodeReply(relayed.headers, relayed.data);
    expect(upstream.kind === "fail" && [errorCode(upstream.error), shouldRetry(upstream.error)]).toEqual(["BUSY", false]);
  });

  test("a plain error is a header-only x-error reply", () => {
    const r = encodeReply(fail(new Error("boom")));
    expect(r.headers?.get("x-error")).toBe("boom");
    expect(r.headers?.has("x-error-code")).toBe(false);
    expect(r.data.byteLength).toBe(0);
  });

  test("a coded error anywhere in the chain adds x-error-code", () => {
    const r = encodeReply(fail(permanent(coded("E_LIMIT", new Error("too many")))));
    expect(r.headers?.get("x-error")).toBe("E_LIMIT: too many");
    expect(r.headers?.get("x-error-code")).toBe("E_LIMIT");
  });

  test("a multi-line error message travels on one line", () => {
    const r = encodeReply(fail(new Error("a\nb\r\nc")));
    expect(r.headers?.get("x-error")).toBe("a b c");
  });

  test("empty, ok(null) and ok(undefined) are x-empty: 1", () => {
    for (const res of [empty, ok(null), ok(undefined)]) {
      const r = encodeReply(res);
      expect(r.headers?.get("x-empty")).toBe("1");
      expect(r.data.byteLength).toBe(0);
    }
  });

  test("ok(bytes) is sent raw, ok(value) as JSON, without headers", () => {
    const bytes = te.encode("[1]");
    expect(encodeReply(ok(bytes)).data).toBe(bytes);
    const r = encodeReply(ok({ status: 200 }));
    expect(r.headers).toBeUndefined();
    expect(td.decode(r.data)).toBe('{"status":200}');
  });
});

describe("reply decoding", () => {
  test("x-error without a code is a RemoteError with the exact text", () => {
    const h = headers();
    h.set("x-error", "boom");
    const r = decodeReply(h, new Uint8Array());
    expect(r.kind).toBe("fail");
    if (r.kind !== "fail") return;
    expect(r.error).toBeInstanceOf(RemoteError);
    expect(r.error.message).toBe("boom");
    expect(errorCode(r.error)).toBeUndefined();
  });

  test("x-error with a code is a coded error whose prefix is not doubled", () => {
    const h = headers();
    h.set("x-error", "E_LIMIT: too many");
    h.set("x-error-code", "E_LIMIT");
    const r = decodeReply(h, new Uint8Array());
    if (r.kind !== "fail") throw new Error(`expected fail, got ${r.kind}`);
    expect(r.error).toBeInstanceOf(RemoteCodedError);
    expect(r.error).toBeInstanceOf(CodedError);
    expect(r.error.message).toBe("E_LIMIT: too many");
    expect(errorCode(r.error)).toBe("E_LIMIT");
  });

  test("a code whose text lacks the prefix gets it once", () => {
    const h = headers();
    h.set("x-error", "too many");
    h.set("x-error-code", "E_LIMIT");
    const r = decodeReply(h, new Uint8Array());
    if (r.kind !== "fail") throw new Error(`expected fail, got ${r.kind}`);
    expect(r.error.message).toBe("E_LIMIT: too many");
  });

  test("x-empty or an empty body is the empty Result", () => {
    const h = headers();
    h.set("x-empty", "1");
    expect(decodeReply(h, new Uint8Array())).toBe(empty);
    expect(decodeReply(undefined, new Uint8Array())).toBe(empty);
  });

  test("a body is ok(raw bytes)", () => {
    const body = te.encode('{"status":200}');
    const r = decodeReply(undefined, body);
    expect(r).toEqual(ok(body));
  });

  test("a round trip of each reply kind keeps it", () => {
    const enc = (x: Parameters<typeof encodeReply>[0]) => {
      const e = encodeReply(x);
      return decodeReply(e.headers, e.data);
    };
    expect(enc(empty)).toBe(empty);
    const v = enc(ok({ a: 1 }));
    expect(v.kind === "ok" && JSON.parse(td.decode(v.value as Uint8Array))).toEqual({ a: 1 });
    const f = enc(fail(coded("X", new Error("y"))));
    expect(f.kind === "fail" && f.error.message).toBe("X: y");
  });
});

describe("names", () => {
  test("subjects, consumer and ledger keys are the Go names", () => {
    expect(msgSubject("mod-b")).toBe("tinymodule.mod-b.msg");
    expect(sysmsgSubject("mod-b")).toBe("tinymodule.mod-b.sysmsg");
    expect(subjectFor("h2.mod-b.y-1:in")).toBe("tinymodule.mod-b.msg");
    expect(sysConsumerName("mod-b", "pod-1")).toBe("mod-b-sys-pod-1");
    expect(stepRecordKey("r1", "r1.00ff")).toBe("exec/r1/step/r1.00ff");
    expect(execKey("r 1", "k:v")).toBe("exec/r_1/k_v");
  });

  test("a destination without a module segment has no subject", () => {
    expect(() => subjectFor("justnode:in")).toThrow(/parse destination error/);
  });
});

describe("stream acknowledgements in place of a reply (runtime-spec §4.5)", () => {
  test("a header-less {stream, seq} of a module stream is recognised", () => {
    expect(streamAckOf(undefined, te.encode('{"stream":"module-edges","seq":12}'))).toEqual({ stream: "module-edges", seq: 12 });
    expect(streamAckOf(undefined, te.encode('{"stream":"module-sysmsgs","seq":3,"duplicate":true}'))).toEqual({ stream: "module-sysmsgs", seq: 3 });
  });

  test("a module's own reply is never taken for one: other streams, extra keys, headers, non-objects", () => {
    expect(streamAckOf(undefined, te.encode('{"stream":"orders","seq":1}'))).toBeUndefined();
    expect(streamAckOf(undefined, te.encode('{"stream":"module-edges","seq":1,"total":9}'))).toBeUndefined();
    expect(streamAckOf(undefined, te.encode('{"stream":"module-edges","seq":"1"}'))).toBeUndefined();
    expect(streamAckOf(headers(), te.encode('{"stream":"module-edges","seq":1}'))).toBeUndefined();
    expect(streamAckOf(undefined, te.encode("[1]"))).toBeUndefined();
    expect(streamAckOf(undefined, te.encode("{not json"))).toBeUndefined();
    expect(streamAckOf(undefined, new Uint8Array())).toBeUndefined();
  });
});
