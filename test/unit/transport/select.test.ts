import { describe, expect, test } from "bun:test";
import { selectTransport } from "../../../src/transport/select.ts";

describe("transport selection (runtime-spec §4.1)", () => {
  test("no TINY_NATS_URL selects gRPC, whatever TINY_NATS_TRANSPORT says", () => {
    expect(selectTransport({})).toEqual({ kind: "grpc" });
    expect(selectTransport({ TINY_NATS_TRANSPORT: "jetstream" })).toEqual({ kind: "grpc" });
  });
  test("TINY_NATS_URL alone selects core NATS", () => {
    expect(selectTransport({ TINY_NATS_URL: "nats://n:4222" })).toEqual({ kind: "core", natsUrl: "nats://n:4222" });
  });
  test("TINY_NATS_TRANSPORT=jetstream selects JetStream", () => {
    expect(selectTransport({ TINY_NATS_URL: "nats://n:4222", TINY_NATS_TRANSPORT: "jetstream" })).toEqual({ kind: "jetstream", natsUrl: "nats://n:4222" });
  });
  test("any other TINY_NATS_TRANSPORT value is core, as in Go", () => {
    for (const v of ["core", "JetStream", "js", ""]) expect(selectTransport({ TINY_NATS_URL: "nats://n", TINY_NATS_TRANSPORT: v }).kind).toBe("core");
  });
});
