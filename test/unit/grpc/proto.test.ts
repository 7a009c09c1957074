import { describe, expect, test } from "bun:test";
import protobuf from "protobufjs";
import { healthServiceDefinition } from "../../../src/transport/grpc/health.ts";
import { MESSAGE_METHOD, MODULE_DESCRIPTOR, MODULE_PROTO, moduleServiceDefinition } from "../../../src/transport/grpc/proto.ts";
import { requestFromMsg } from "../../../src/transport/grpc/codec.ts";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe("module proto", () => {
  test("the inline descriptor is what the .proto text parses to", () => {
    const parsed = protobuf.parse(MODULE_PROTO, { keepCase: true }).root.toJSON();
    expect(parsed).toEqual(JSON.parse(JSON.stringify(MODULE_DESCRIPTOR)));
  });

  test("the service has one unary method /module.ModuleService/Message", () => {
    const def = moduleServiceDefinition();
    expect(Object.keys(def)).toEqual(["Message"]);
    expect(def.Message!.path).toBe(MESSAGE_METHOD);
    expect(MESSAGE_METHOD).toBe("/module.ModuleService/Message");
    expect([def.Message!.requestStream, def.Message!.responseStream]).toEqual([false, false]);
  });

  test("a request encodes to Go's bytes: fields 2..5 in order, empty ID left out", () => {
    const req = requestFromMsg({ edgeId: "e1", from: "a:b", to: "x.m.c-1:in", data: { a: 1 }, depth: 3 });
    const bytes = moduleServiceDefinition().Message!.requestSerialize(req);
    // From(2)="a:b" To(3)="x.m.c-1:in" Payload(4)={"a":1} EdgeID(5)="e1", written by hand from the proto3 wire format.
    expect(hex(bytes)).toBe("1203613a62" + "1a0a782e6d2e632d313a696e" + "22077b2261223a317d" + "2a026531");
  });

  test("a response with Data decodes, and zero bytes decode as empty Data", () => {
    const m = moduleServiceDefinition().Message!;
    expect(hex(m.responseSerialize({ Data: new Uint8Array([0x7b, 0x7d]) }))).toBe("0a027b7d");
    expect(m.responseSerialize({}).byteLength).toBe(0);
    expect(hex(m.responseDeserialize(Buffer.alloc(0)).Data)).toBe("");
    expect(hex(m.responseDeserialize(Buffer.from("0a027b7d", "hex")).Data)).toBe("7b7d");
  });

  test("a request decodes with proto3 defaults for missing fields", () => {
    const r = moduleServiceDefinition().Message!.requestDeserialize(Buffer.from("1a0a782e6d2e632d313a696e", "hex"));
    expect({ ...r, Payload: hex(r.Payload) }).toEqual({ ID: "", From: "", To: "x.m.c-1:in", Payload: "", EdgeID: "" });
  });
});

describe("health proto", () => {
  test("Check is unary and Watch is server-streaming under grpc.health.v1.Health", () => {
    const def = healthServiceDefinition();
    expect(def.Check!.path).toBe("/grpc.health.v1.Health/Check");
    expect(def.Watch!.path).toBe("/grpc.health.v1.Health/Watch");
    expect([def.Check!.responseStream, def.Watch!.responseStream]).toEqual([false, true]);
  });

  test("SERVING encodes as status = 1", () => {
    expect(hex(healthServiceDefinition().Check!.responseSerialize({ status: "SERVING" }))).toBe("0801");
  });
});
