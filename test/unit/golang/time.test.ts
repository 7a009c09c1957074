// Go's time formatting (src/golang/time.ts): the RFC 3339 texts cron, chat, run_status and collect
// publish, and GoTime.Format in a zone with an offset. Expected texts are what Go's time package
// writes for the same instant (time.Unix(...).In(time.FixedZone("", off)).Format(layout)).
import { describe, expect, test } from "bun:test";
import { formatRfc3339, formatRfc3339Nano, GoTime, RFC3339, RFC3339_NANO } from "../../../src/golang/time.ts";

const T = Date.UTC(2026, 2, 1, 10, 4, 5, 120); // 2026-03-01T10:04:05.120Z

describe("formatRfc3339 (time.RFC3339)", () => {
  test("UTC: whole seconds and Z", () => {
    expect(formatRfc3339(new Date(T), "utc")).toBe("2026-03-01T10:04:05Z");
  });

  test("local: the process's offset on that date, Z when it is zero", () => {
    const d = new Date(T);
    const off = -d.getTimezoneOffset();
    const text = formatRfc3339(d, "local");
    if (off === 0) expect(text).toBe("2026-03-01T10:04:05Z");
    else expect(new Date(text).getTime()).toBe(Math.floor(T / 1000) * 1000);
    expect(text).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$/);
  });
});

describe("formatRfc3339Nano (time.Time in JSON)", () => {
  test("a Date: UTC, the fraction without trailing zeros, none when whole", () => {
    expect(formatRfc3339Nano(new Date(T))).toBe("2026-03-01T10:04:05.12Z");
    expect(formatRfc3339Nano(new Date(Date.UTC(2026, 0, 1)))).toBe("2026-01-01T00:00:00Z");
  });

  test("a text keeps its zone and digits, losing only the trailing zeros", () => {
    expect(formatRfc3339Nano("2026-03-01T10:04:05.123456700+02:00")).toBe("2026-03-01T10:04:05.1234567+02:00");
    expect(formatRfc3339Nano("2026-03-01T10:04:05.000Z")).toBe("2026-03-01T10:04:05Z");
  });

  test("a year past 9999 is written as Go writes it, without toISOString's sign", () => {
    expect(formatRfc3339Nano(new Date(Date.UTC(10000, 0, 1)))).toBe("10000-01-01T00:00:00Z");
  });
});

describe("GoTime in a zone with an offset (time.FixedZone)", () => {
  const ms = Date.UTC(2026, 2, 1, 23, 30, 0); // 2026-03-01T23:30:00Z
  test("the wall clock and date move with the offset; the instant does not", () => {
    const t = new GoTime(ms, 0, 5 * 3600 + 30 * 60);
    expect(t.Format(RFC3339)).toBe("2026-03-02T05:00:00+05:30");
    expect(t.Day()).toBe(2n);
    expect(t.Unix()).toBe(BigInt(ms / 1000));
    expect(t.UTC().Format(RFC3339)).toBe("2026-03-01T23:30:00Z");
  });

  test("each zone element: Z forms, numeric forms, MST of a nameless zone", () => {
    const t = new GoTime(ms, 0, -(3 * 3600 + 30 * 60 + 15));
    expect(t.Format("Z07:00|Z0700|Z07|-07:00|-0700|-07|Z07:00:00|-070000|MST")).toBe("-03:30|-0330|-03|-03:30|-0330|-03|-03:30:15|-033015|-0330");
    const utc = new GoTime(ms);
    expect(utc.Format("Z07:00|Z07|-07:00|-07|MST")).toBe("Z|Z|+00:00|+00|UTC");
  });

  test("String() and AddDate keep the zone", () => {
    const t = new GoTime(ms, 0, 3600);
    expect(t.goString()).toBe("2026-03-02 00:30:00 +0100 +0100");
    expect(t.AddDate(0n, 0n, 1n).Format(RFC3339_NANO)).toBe("2026-03-03T00:30:00+01:00");
  });
});
