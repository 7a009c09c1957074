/** The module's integer env variables take decimal integers only (src/operator/env-integer.ts; docs/operations.md §10; issue 21 trial). */
import { expect, test } from "bun:test";
import { DEFAULT_MAX_CONCURRENT_HOPS } from "../../../src/transport/slots.ts";
import { slotsFromEnv } from "../../../src/operator/transport.ts";
import { nodeWorkers } from "../../../src/operator/controllers.ts";
import { DEFAULT_NODE_WORKERS } from "../../../src/k8s/controllers/index.ts";

test("a decimal integer sets the limit; unset or empty is the default", () => {
  expect(slotsFromEnv({ TINYHOST_MAX_CONCURRENT_HOPS: "16" }).limit).toBe(16);
  expect(slotsFromEnv({}).limit).toBe(DEFAULT_MAX_CONCURRENT_HOPS);
  expect(slotsFromEnv({ TINYHOST_MAX_CONCURRENT_HOPS: "" }).limit).toBe(DEFAULT_MAX_CONCURRENT_HOPS);
});

test("hex, exponents, padding, fractions, signs, zero and absurd sizes fail naming the variable and the value", () => {
  for (const raw of ["0x10", "1e3", " 8", "8 ", "1.5", "-1", "+4", "0", "abc", "99999999999"]) {
    expect(() => slotsFromEnv({ TINYHOST_MAX_CONCURRENT_HOPS: raw })).toThrow(
      `TINYHOST_MAX_CONCURRENT_HOPS = ${JSON.stringify(raw)} must be a decimal integer ≥ 1`,
    );
  }
});

test("TINYHOST_NODE_WORKERS goes through the same parser", () => {
  expect(nodeWorkers({ TINYHOST_NODE_WORKERS: "8" })).toBe(8);
  expect(nodeWorkers({})).toBe(DEFAULT_NODE_WORKERS);
  expect(() => nodeWorkers({ TINYHOST_NODE_WORKERS: "0x10" })).toThrow('TINYHOST_NODE_WORKERS = "0x10" must be a decimal integer ≥ 1');
});
