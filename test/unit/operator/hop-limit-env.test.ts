/** `TINYHOST_MAX_CONCURRENT_HOPS` takes decimal integers ≥ 1 only (docs/operations.md §10; issue 21 trial). */
import { expect, test } from "bun:test";
import { DEFAULT_MAX_CONCURRENT_HOPS } from "../../../src/transport/slots.ts";
import { slotsFromEnv } from "../../../src/operator/transport.ts";

test("a decimal integer sets the limit; unset or empty is the default", () => {
  expect(slotsFromEnv({ TINYHOST_MAX_CONCURRENT_HOPS: "16" }).limit).toBe(16);
  expect(slotsFromEnv({}).limit).toBe(DEFAULT_MAX_CONCURRENT_HOPS);
  expect(slotsFromEnv({ TINYHOST_MAX_CONCURRENT_HOPS: "" }).limit).toBe(DEFAULT_MAX_CONCURRENT_HOPS);
});

test("hex, exponents, padding, fractions, signs, zero and absurd sizes fail naming the variable and the value", () => {
  for (const raw of ["0x10", "1e3", " 8", "8 ", "1.5", "-1", "+4", "0", "abc", "99999999999"]) {
    expect(() => slotsFromEnv({ TINYHOST_MAX_CONCURRENT_HOPS: raw })).toThrow(`TINYHOST_MAX_CONCURRENT_HOPS = ${JSON.stringify(raw)} must be a decimal integer ≥ 1`);
  }
});
