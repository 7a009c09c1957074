/** The first NATS connect's wait (src/operator/nats-connect-wait.ts; docs/operations.md §3): the knob's parsing and the retry loop. */
import { describe, expect, test } from "bun:test";
import { connectWithWait, ENV_NATS_CONNECT_WAIT_MS, MAX_NATS_CONNECT_WAIT_MS, natsConnectWaitFromEnv } from "../../../src/operator/nats-connect-wait.ts";
import type { Logger } from "../../../src/telemetry/log.ts";

/** Collects what the loop logs at warn. */
function collector(): { log: Logger; warned: Record<string, unknown>[] } {
  const warned: Record<string, unknown>[] = [];
  return { log: { warn: (fields: Record<string, unknown>) => void warned.push(fields) } as unknown as Logger, warned };
}

describe("TINYHOST_NATS_CONNECT_WAIT_MS", () => {
  test("unset or empty is 0 (Go's single attempt); a decimal integer up to 600000 is taken", () => {
    expect(natsConnectWaitFromEnv({})).toBe(0);
    expect(natsConnectWaitFromEnv({ [ENV_NATS_CONNECT_WAIT_MS]: "" })).toBe(0);
    expect(natsConnectWaitFromEnv({ [ENV_NATS_CONNECT_WAIT_MS]: "0" })).toBe(0);
    expect(natsConnectWaitFromEnv({ [ENV_NATS_CONNECT_WAIT_MS]: "120000" })).toBe(120_000);
    expect(natsConnectWaitFromEnv({ [ENV_NATS_CONNECT_WAIT_MS]: String(MAX_NATS_CONNECT_WAIT_MS) })).toBe(600_000);
  });

  test("hex, exponents, padding, signs, fractions and more than 10 minutes fail naming the variable and the value", () => {
    for (const raw of ["0x10", "1e3", " 8", "-1", "1.5", "abc"]) {
      expect(() => natsConnectWaitFromEnv({ [ENV_NATS_CONNECT_WAIT_MS]: raw })).toThrow(
        `${ENV_NATS_CONNECT_WAIT_MS} = ${JSON.stringify(raw)} must be a decimal integer`,
      );
    }
    expect(() => natsConnectWaitFromEnv({ [ENV_NATS_CONNECT_WAIT_MS]: "600001" })).toThrow(`${ENV_NATS_CONNECT_WAIT_MS} = "600001" must be at most 600000`);
  });
});

describe("connectWithWait", () => {
  test("0: one attempt, its error thrown, nothing logged", async () => {
    const { log, warned } = collector();
    let attempts = 0;
    const connect = async () => {
      attempts++;
      throw new Error("ECONNREFUSED");
    };
    await expect(connectWithWait({ connect, waitMs: 0, log })).rejects.toThrow("ECONNREFUSED");
    expect(attempts).toBe(1);
    expect(warned).toEqual([]);
  });

  test("retries until an attempt succeeds, logging each failure once with its reason", async () => {
    const { log, warned } = collector();
    let attempts = 0;
    const connect = async () => {
      attempts++;
      if (attempts < 3) throw new Error(`refused ${attempts}`);
      return "connection";
    };
    expect(await connectWithWait({ connect, waitMs: 60_000, log })).toBe("connection");
    expect(attempts).toBe(3);
    expect(warned.map((w) => [w.err, w.attempt])).toEqual([
      ["refused 1", 1],
      ["refused 2", 2],
    ]);
  });

  test("gives up with the last error once the wait has passed (the caller then falls back to gRPC)", async () => {
    const { log } = collector();
    let clock = 0;
    let attempts = 0;
    const connect = async () => {
      attempts++;
      clock += 1_000; // each attempt takes a second of the (test) clock
      throw new Error(`refused ${attempts}`);
    };
    await expect(connectWithWait({ connect, waitMs: 2_500, log, now: () => clock })).rejects.toThrow("refused 3");
    expect(attempts).toBe(3);
  });
});
