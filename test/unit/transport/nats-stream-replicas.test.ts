/**
 * Stream replicas on a clustered broker (`TINYHOST_NATS_REPLICAS`, docs/operations.md "A clustered
 * broker"): given, both streams are created or updated with that many; not given, an existing
 * stream keeps its count (the server reads a missing count as 1 and would scale it down). The
 * JetStream manager here records the calls ensureStream makes; the real server's side is
 * test/integration/real-nats-cluster.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { JetStreamApiError, type JetStreamManager, type StreamConfig } from "@nats-io/jetstream";
import { ensureStream, ensureStreams, edgeStreamConfig } from "../../../src/transport/nats/streams.ts";
import { natsReplicasFromEnv } from "../../../src/operator/transport.ts";

/** A manager holding streams in a map, recording add/update configs. */
function recordingManager(existing: Record<string, number>) {
  const calls: string[] = [];
  const jsm = {
    streams: {
      async info(name: string) {
        if (!(name in existing)) throw new JetStreamApiError({ code: 404, err_code: 10059, description: "stream not found" });
        return { config: { name, num_replicas: existing[name] } };
      },
      async add(cfg: Partial<StreamConfig> & { name: string }) {
        calls.push(`add ${cfg.name} R${cfg.num_replicas ?? "-"}`);
      },
      async update(name: string, cfg: Partial<StreamConfig>) {
        calls.push(`update ${name} R${cfg.num_replicas ?? "-"}`);
      },
    },
  };
  return { jsm: jsm as unknown as JetStreamManager, calls };
}

describe("stream replicas", () => {
  test("given: a new stream is created with them, an existing one is updated to them", async () => {
    const { jsm, calls } = recordingManager({ "module-sysmsgs": 1 });
    await ensureStreams(jsm, 3);
    expect(calls).toEqual(["add module-edges R3", "update module-sysmsgs R3"]);
  });

  test("not given: an existing R3 stream stays R3 (no scale-down by a module without the setting)", async () => {
    const { jsm, calls } = recordingManager({ "module-edges": 3 });
    await ensureStream(jsm, edgeStreamConfig());
    expect(calls).toEqual(["update module-edges R3"]);
    expect(edgeStreamConfig()).not.toHaveProperty("num_replicas");
  });

  test("TINYHOST_NATS_REPLICAS: unset → undefined; 1–5 taken; anything else refused naming the variable and value", () => {
    expect(natsReplicasFromEnv({})).toBeUndefined();
    expect(natsReplicasFromEnv({ TINYHOST_NATS_REPLICAS: "3" })).toBe(3);
    expect(() => natsReplicasFromEnv({ TINYHOST_NATS_REPLICAS: "6" })).toThrow('TINYHOST_NATS_REPLICAS = "6" must be at most 5');
    expect(() => natsReplicasFromEnv({ TINYHOST_NATS_REPLICAS: "three" })).toThrow('TINYHOST_NATS_REPLICAS = "three"');
    expect(() => natsReplicasFromEnv({ TINYHOST_NATS_REPLICAS: "0" })).toThrow("≥ 1");
  });
});
