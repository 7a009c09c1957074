/**
 * RFC3339 timestamps and Go durations for the SDK's `+`/`-` overrides (runtime-spec §2.11,
 * pkg/evaluator/functions.go): `time + duration → time`, `time - duration → time`,
 * `duration ± duration → "<seconds>s"`.
 *
 * Times are kept as BigInt nanoseconds since the Unix epoch plus the zone offset of the input,
 * so adding "1ns" is exact and the result keeps the input's offset, as Go's `time.Time` does.
 */
import { formatNumber } from "./values.ts";

/** A parsed RFC3339 time: nanoseconds since the epoch and the input's UTC offset (minutes). */
export interface ParsedTime {
  /** Nanoseconds since 1970-01-01T00:00:00Z. */
  readonly ns: bigint;
  /** UTC offset of the written zone, in minutes (0 for `Z`). */
  readonly offsetMinutes: number;
}

const NS_PER_SECOND = 1_000_000_000n;

// RFC3339 with optional fractional seconds, as Go's time.Parse(time.RFC3339, s) accepts.
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Parses an RFC3339 timestamp (`2024-01-02T03:04:05Z`, `…05.123+02:00`); undefined when the text
 * is not one (fields out of range included). Source: RFC 3339 §5.6, Go `time.RFC3339`.
 */
export function parseRFC3339(text: string): ParsedTime | undefined {
  // Cheap shape check first: this runs for every string `+`/`-`.
  if (text.length < 20 || text.charCodeAt(4) !== 45 /* - */ || text.charCodeAt(10) !== 84 /* T */) {
    return undefined;
  }
  const m = RFC3339.exec(text);
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m as unknown as [string, string, string, string, string, string, string, string | undefined, string];
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(ms);
  if (check.getUTCDate() !== day) return undefined; // e.g. 2023-02-30
  let offsetMinutes = 0;
  if (zone !== "Z") {
    const oh = Number(zone.slice(1, 3));
    const om = Number(zone.slice(4, 6));
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (zone[0] === "-" ? -1 : 1) * (oh * 60 + om);
  }
  const nanosFraction = frac === undefined ? 0n : BigInt(frac.padEnd(9, "0"));
  const utcSeconds = BigInt(ms / 1000) - BigInt(offsetMinutes * 60);
  return { ns: utcSeconds * NS_PER_SECOND + nanosFraction, offsetMinutes };
}

/**
 * Formats a time as Go's `Format(time.RFC3339)`: whole seconds (the fraction is truncated),
 * `Z` for a zero offset, else `±hh:mm`.
 */
export function formatRFC3339(t: ParsedTime): string {
  let seconds = t.ns / NS_PER_SECOND;
  if (t.ns < 0n && seconds * NS_PER_SECOND !== t.ns) seconds -= 1n; // floor, not toward zero
  const local = new Date((Number(seconds) + t.offsetMinutes * 60) * 1000);
  const stamp = local.toISOString().slice(0, 19);
  if (t.offsetMinutes === 0) return `${stamp}Z`;
  const abs = Math.abs(t.offsetMinutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, "0");
  const mm = String(abs % 60).padStart(2, "0");
  return `${stamp}${t.offsetMinutes < 0 ? "-" : "+"}${hh}:${mm}`;
}

/** Formats unix seconds as RFC3339 in UTC (the `RFC3339(x)` function; Go uses the process zone, UTC in a container). */
export function formatUnixSeconds(seconds: number): string {
  return formatRFC3339({ ns: BigInt(Math.trunc(seconds)) * NS_PER_SECOND, offsetMinutes: 0 });
}

const UNIT_NS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  "\u00b5s": 1_000n, // µ (micro sign)
  "\u03bcs": 1_000n, // μ (Greek mu)
  ms: 1_000_000n,
  s: NS_PER_SECOND,
  m: 60n * NS_PER_SECOND,
  h: 3600n * NS_PER_SECOND,
};

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * Parses a Go duration (`1h30m`, `10s`, `500ms`, `-1.5h`, `0`) into nanoseconds; undefined when
 * the text is not one. Same grammar as Go's `time.ParseDuration`: optional sign, then one or more
 * `<decimal><unit>` with units ns, us, µs, ms, s, m, h; a bare `0` is allowed.
 */
export function parseGoDuration(text: string): bigint | undefined {
  const n = text.length;
  if (n === 0) return undefined;
  let i = 0;
  let negative = false;
  const first = text.charCodeAt(0);
  if (first === 45 /* - */ || first === 43 /* + */) {
    negative = first === 45;
    i = 1;
  }
  if (text.slice(i) === "0") return 0n;
  if (i >= n) return undefined;
  let total = 0n;
  while (i < n) {
    const intStart = i;
    while (i < n && isDigit(text.charCodeAt(i))) i++;
    const intPart = text.slice(intStart, i);
    let fracPart = "";
    if (i < n && text.charCodeAt(i) === 46 /* . */) {
      i++;
      const fracStart = i;
      while (i < n && isDigit(text.charCodeAt(i))) i++;
      fracPart = text.slice(fracStart, i);
    }
    if (intPart === "" && fracPart === "") return undefined;
    const unitStart = i;
    while (i < n && !isDigit(text.charCodeAt(i)) && text.charCodeAt(i) !== 46) i++;
    const unit = UNIT_NS[text.slice(unitStart, i)];
    if (unit === undefined) return undefined;
    total += (intPart === "" ? 0n : BigInt(intPart)) * unit;
    if (fracPart !== "") total += (BigInt(fracPart) * unit) / 10n ** BigInt(fracPart.length);
  }
  return negative ? -total : total;
}

/** Formats nanoseconds as `"<seconds>s"` (e.g. `5400s`, `0.5s`), the SDK's duration ± duration result. */
export function formatSeconds(ns: bigint): string {
  return `${formatNumber(Number(ns) / 1e9)}s`;
}
