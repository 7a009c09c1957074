import { describe, expect, test } from "bun:test";
import { Metadata, status } from "@grpc/grpc-js";
import { Type } from "typebox";
import { CodedError, coded, errorCode, retryable, shouldRetry } from "../../../src/core/errors.ts";
import { ShuttingDownError } from "../../../src/transport/refusal.ts";
import { BusyError } from "../../../src/transport/slots.ts";
import { empty, fail, ok } from "../../../src/core/result.ts";
import {
  decodeCallError,
  depthFromMetadata,
  encodePayload,
  errorStatus,
  msgFromRequest,
  replyFromResult,
  requestFromMsg,
  resultFromReply,
} from "../../../src/transport/grpc/codec.ts";
import { GrpcCallError, GrpcEncodeError, RemoteHandlerError } from "../../../src/transport/grpc/errors.ts";
import { GrpcServer, advertisedAddress, bindTarget } from "../../../src/transport/grpc/server.ts";

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const bytes = (s: string) => new TextEncoder().encode(s);
/** Trailers as a server sends them: `x-error-code` when coded, `x-refused: 1` for a refusal. */
const trailer = (code?: string, refused = false) => {
  const m = new Metadata();
  if (code) m.set("x-error-code", code);
  if (refused) m.set("x-refused", "1");
  return m;
};

describe("Msg → MessageRequest", () => {
  test("maps from, to, edge id and the JSON payload", () => {
    const req = requestFromMsg({ edgeId: "e", from: "a.m.c:out", to: "b.n.d:in", data: { x: [1, "y"] }, depth: 2 });
    expect({ ...req, Payload: text(req.Payload!) }).toEqual({ From: "a.m.c:out", To: "b.n.d:in", Payload: '{"x":[1,"y"]}', EdgeID: "e" });
  });

  test("leaves empty strings and an undefined payload out", () => {
    expect(requestFromMsg({ edgeId: "", from: "", to: "b.n.d:in", data: undefined, depth: 0 })).toEqual({ To: "b.n.d:in" });
  });

  test("a string payload is a JSON string; bytes pass through unchanged", () => {
    expect(text(encodePayload("hi"))).toBe('"hi"');
    const raw = bytes('{"already":"json"}');
    expect(encodePayload(raw)).toBe(raw);
  });

  test("a payload with no JSON form fails with ENCODE", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => requestFromMsg({ edgeId: "", from: "", to: "b.n.d:in", data: cyclic, depth: 0 })).toThrow(GrpcEncodeError);
    expect(() => encodePayload({ n: 1n })).toThrow(/cannot encode hop payload as JSON/);
  });
});

describe("MessageRequest → Msg", () => {
  test("keeps the payload as plain JSON bytes and takes the depth given", () => {
    const m = msgFromRequest({ ID: "", From: "a:b", To: "x.m.c:in", Payload: Buffer.from('{"a":1}'), EdgeID: "e" }, 4);
    expect(Object.getPrototypeOf(m.data)).toBe(Uint8Array.prototype);
    expect({ ...m, data: text(m.data as Uint8Array) }).toEqual({ edgeId: "e", from: "a:b", to: "x.m.c:in", data: '{"a":1}', depth: 4 });
  });

  test("missing fields read as proto3 defaults", () => {
    const m = msgFromRequest({}, 0);
    expect(m).toEqual({ edgeId: "", from: "", to: "", data: new Uint8Array(0), depth: 0 });
  });

  test("depth comes from x-message-depth; absent or malformed is 0", () => {
    const md = (v?: string) => {
      const m = new Metadata();
      if (v !== undefined) m.set("x-message-depth", v);
      return m;
    };
    expect(depthFromMetadata(md("7"))).toBe(7);
    expect(depthFromMetadata(md())).toBe(0);
    expect(depthFromMetadata(md("seven"))).toBe(0);
    expect(depthFromMetadata(md("-1"))).toBe(0);
  });
});

describe("Result → MessageResponse", () => {
  test("empty, ok(null) and ok(undefined) send no bytes", () => {
    for (const r of [empty, ok(null), ok(undefined)]) expect(replyFromResult(r)).toEqual({ data: new Uint8Array(0) });
  });

  test("bytes are sent raw and values as JSON", () => {
    const raw = bytes("[1]");
    expect(replyFromResult(ok(raw))).toEqual({ data: raw });
    expect(text((replyFromResult(ok({ a: "b" })) as { data: Uint8Array }).data)).toBe('{"a":"b"}');
  });

  test("a failure becomes status UNKNOWN with its text, plus the code when coded", () => {
    const plain = replyFromResult(fail(new Error("boom")));
    expect(errorStatus((plain as { error: Error }).error)).toEqual({ code: status.UNKNOWN, details: "boom", errorCode: undefined, refused: false });
    const c = replyFromResult(fail(coded("E_X", new Error("bad"))));
    expect(errorStatus((c as { error: Error }).error)).toEqual({ code: status.UNKNOWN, details: "E_X: bad", errorCode: "E_X", refused: false });
  });

  test("a refusal of this server is marked refused; the same code relayed from further down is not", () => {
    const busy = errorStatus(retryable(new BusyError("h.m.n-1:in", 4, "queue of 4 full")));
    expect(busy).toMatchObject({ code: status.UNKNOWN, errorCode: "BUSY", refused: true });
    expect(busy.details).toStartWith("BUSY: module busy: 4 hops running");
    expect(errorStatus(retryable(new ShuttingDownError("h.m.n-1:in")))).toMatchObject({ errorCode: "SHUTTING_DOWN", refused: true });
    // What a sender decoded from a refusing module further down: a retryable CodedError, not a local refusal.
    const relayed = decodeCallError({ code: status.UNKNOWN, details: busy.details, metadata: trailer("BUSY", true) }, "m", "h:1");
    expect(errorStatus(relayed)).toMatchObject({ errorCode: "BUSY", refused: false });
  });

  test("a reply value with no JSON form becomes an ENCODE error", () => {
    const r = replyFromResult(ok({ n: 1n }));
    expect((r as { error: Error }).error).toBeInstanceOf(GrpcEncodeError);
  });
});

describe("MessageResponse → Result", () => {
  test("no Data is the empty result", () => {
    expect(resultFromReply(new Uint8Array(0), { to: "x" })).toEqual({ kind: "empty" });
    expect(resultFromReply(undefined, { to: "x" })).toEqual({ kind: "empty" });
  });

  test("Data stays bytes when the port declares no response schema", () => {
    const r = resultFromReply(Buffer.from('{"a":1}'), { to: "x" });
    expect(r.kind).toBe("ok");
    expect(text((r as { value: Uint8Array }).value)).toBe('{"a":1}');
  });

  test("Data is parsed when the port declares a response schema; bad JSON fails with DECODE", () => {
    expect(resultFromReply(bytes('{"a":1}'), { to: "x", responseSchema: Type.Object({}) })).toEqual({ kind: "ok", value: { a: 1 } });
    const bad = resultFromReply(bytes("{nope"), { to: "x.m.c:in", responseSchema: Type.Object({}) });
    expect(bad.kind === "fail" && bad.error).toMatchObject({ code: "DECODE" });
  });
});

describe("call errors", () => {
  test("UNKNOWN without a code is the remote handler's text", () => {
    const e = decodeCallError({ code: status.UNKNOWN, details: "boom", metadata: trailer() }, "m", "h:1");
    expect(e).toBeInstanceOf(RemoteHandlerError);
    expect(e.message).toBe("boom");
    expect(errorCode(e)).toBeUndefined();
  });

  test("UNKNOWN with x-error-code is a CodedError whose text is not prefixed twice", () => {
    const e = decodeCallError({ code: status.UNKNOWN, details: "E_X: bad", metadata: trailer("E_X") }, "m", "h:1");
    expect(e).toBeInstanceOf(CodedError);
    expect(errorCode(e)).toBe("E_X");
    expect(e.message).toBe("E_X: bad");
  });

  test("x-refused makes the error retryable for the edge retry policy, keeping code and text", () => {
    const e = decodeCallError({ code: status.UNKNOWN, details: "BUSY: module busy", metadata: trailer("BUSY", true) }, "m", "h:1");
    expect({ retry: shouldRetry(e), code: errorCode(e), message: e.message }).toEqual({ retry: true, code: "BUSY", message: "BUSY: module busy" });
    const uncoded = decodeCallError({ code: status.UNKNOWN, details: "refused", metadata: trailer(undefined, true) }, "m", "h:1");
    expect(shouldRetry(uncoded)).toBe(true);
    // Without the mark the same code is an ordinary (not retried) coded error.
    expect(shouldRetry(decodeCallError({ code: status.UNKNOWN, details: "BUSY: module busy", metadata: trailer("BUSY") }, "m", "h:1"))).toBe(false);
  });

  test("another status is a GrpcCallError named GRPC_<status> with module and address", () => {
    const e = decodeCallError({ code: status.UNAVAILABLE, details: "connection refused" }, "m", "h:1");
    expect(e).toBeInstanceOf(GrpcCallError);
    expect(e).toMatchObject({ code: "GRPC_UNAVAILABLE", status: status.UNAVAILABLE });
    expect(e.message).toBe("grpc call to module m (h:1): UNAVAILABLE: connection refused");
  });
});

describe("server addresses", () => {
  test("':port' binds all interfaces; host:port is kept; bad values name the value", () => {
    expect(bindTarget(":0")).toBe("[::]:0");
    expect(bindTarget(":8483")).toBe("[::]:8483");
    expect(bindTarget("127.0.0.1:9")).toBe("127.0.0.1:9");
    expect(bindTarget("[::1]:9")).toBe("[::1]:9");
    expect(() => bindTarget("8483")).toThrow('grpc server bind address "8483"');
    expect(() => bindTarget(":70000")).toThrow(/port 0-65535/);
  });

  test("the advertised address is SELF_SERVICE_HOST when set, else 127.0.0.1:<port>", () => {
    expect(advertisedAddress(8483, { SELF_SERVICE_HOST: "mod-manager-service:8483" })).toBe("mod-manager-service:8483");
    expect(advertisedAddress(41000, {})).toBe("127.0.0.1:41000");
    expect(advertisedAddress(41000, { SELF_SERVICE_HOST: "" })).toBe("127.0.0.1:41000");
  });

  test("a server advertises no address before its port is bound (the status is never written with port 0)", () => {
    const handler = async () => empty;
    expect(new GrpcServer({ handler, address: "127.0.0.1:0", env: {} }).advertisedAddress).toBe("");
    expect(new GrpcServer({ handler, address: "127.0.0.1:0", env: { SELF_SERVICE_HOST: "mod-manager-service:8483" } }).advertisedAddress).toBe("");
  });
});
