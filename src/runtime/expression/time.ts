/**
 * RFC3339 timestamps and Go durations for the SDK's `+`/`-` overrides (runtime-spec §2.11,
 * pkg/evaluator/functions.go): `time ± duration → time`, `duration ± duration → "<seconds>s"`.
 *
 * Parsing follows Go's `time.Parse(time.RFC3339, s)` — its fast RFC3339 path and, when that
 * fails, the generic layout parser it falls back to (Go time/format.go, format_rfc3339.go): a
 * four-digit year, `T`, a one- or two-digit hour, a fraction after `.` or `,`, `Z` or an offset
 * up to ±24:60. Formatting follows `Format(time.RFC3339)`: whole seconds, any year (`10000-…`,
 * `-1199-…`), `Z` for a zero offset. Times are BigInt nanoseconds plus the written offset, so
 * adding "1ns" is exact. The process zone (Go's `Local`) is taken as UTC, as in the module
 * containers: an offset of zero prints `Z`.
 */
import { formatGoFloat } from "./goformat.ts";

/** A parsed time: nanoseconds since the Unix epoch and the written UTC offset in seconds. */
export interface ParsedTime {
  /** Nanoseconds since 1970-01-01T00:00:00Z. */
  readonly ns: bigint;
  /** UTC offset of the written zone, in seconds (0 for `Z`). */
  readonly offsetSeconds: number;
}

const NS_PER_SECOND = 1_000_000_000n;

function isLeap(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(month: number, year: number): number {
  return month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month - 1]!;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The date of a day count since 1970-01-01 (H. Hinnant's civil_from_days). */
function civilFromDays(days: number): [number, number, number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [era * 400 + yoe + (month <= 2 ? 1 : 0), month, day];
}

function digitAt(s: string, i: number): number {
  const c = s.charCodeAt(i);
  return c >= 48 && c <= 57 ? c - 48 : -1;
}

/** Exactly `n` digits at `i`, or -1. */
function fixed(s: string, i: number, n: number): number {
  let v = 0;
  for (let k = 0; k < n; k++) {
    const d = digitAt(s, i + k);
    if (d < 0) return -1;
    v = v * 10 + d;
  }
  return v;
}

/**
 * Parses a timestamp as Go's `time.Parse(time.RFC3339, text)` accepts it; undefined otherwise.
 * Accepted: `YYYY-MM-DDTH[H]:MM:SS[(.|,)digits](Z|±HH:MM)`, fields in range (hour ≤ 23, day valid
 * for the month), offset hour ≤ 24 and minute ≤ 60. Sources: Go time/format.go `parse`,
 * format_rfc3339.go `parseRFC3339`.
 */
export function parseRFC3339(text: string): ParsedTime | undefined {
  // Cheap shape check first: this runs for every string `+`/`-`.
  if (text.length < 19 || text.charCodeAt(4) !== 45 /* - */) return undefined;
  const year = fixed(text, 0, 4);
  if (year < 0 || text[4] !== "-") return undefined;
  const month = fixed(text, 5, 2);
  if (month < 1 || month > 12 || text[7] !== "-") return undefined;
  const day = fixed(text, 8, 2);
  if (day < 0 || text[10] !== "T") return undefined;
  let i = 11;
  let hour = digitAt(text, i);
  if (hour < 0) return undefined;
  i++;
  const h2 = digitAt(text, i);
  if (h2 >= 0) {
    hour = hour * 10 + h2;
    i++;
  }
  if (hour > 23 || text[i] !== ":") return undefined;
  const minute = fixed(text, i + 1, 2);
  if (minute < 0 || minute > 59 || text[i + 3] !== ":") return undefined;
  const second = fixed(text, i + 4, 2);
  if (second < 0 || second > 59) return undefined;
  i += 6;
  let nanos = 0n;
  if ((text[i] === "." || text[i] === ",") && digitAt(text, i + 1) >= 0) {
    let j = i + 1;
    while (digitAt(text, j) >= 0) j++;
    nanos = BigInt(text.slice(i + 1, Math.min(j, i + 10)).padEnd(9, "0"));
    i = j;
  }
  let offsetSeconds = 0;
  if (text[i] === "Z" && i + 1 === text.length) {
    // UTC
  } else {
    const sign = text[i];
    if ((sign !== "+" && sign !== "-") || text.length !== i + 6 || text[i + 3] !== ":") return undefined;
    const oh = fixed(text, i + 1, 2);
    const om = fixed(text, i + 4, 2);
    if (oh < 0 || om < 0 || oh > 24 || om > 60) return undefined;
    offsetSeconds = (sign === "-" ? -1 : 1) * (oh * 3600 + om * 60);
  }
  if (day < 1 || day > daysIn(month, year)) return undefined;
  const local = daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
  return { ns: BigInt(local - offsetSeconds) * NS_PER_SECOND + nanos, offsetSeconds };
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, "0");
}

/** Go's `appendInt(b, year, 4)`: at least four digits, a minus sign before negative years. */
function formatYear(year: number): string {
  return year < 0 ? `-${pad(-year, 4)}` : pad(year, 4);
}

/**
 * Formats as Go's `Format(time.RFC3339)`: whole seconds (the fraction is dropped), any year,
 * `Z` for a zero offset, else `±hh:mm`.
 */
export function formatRFC3339(t: ParsedTime): string {
  let seconds = t.ns / NS_PER_SECOND;
  if (t.ns < 0n && seconds * NS_PER_SECOND !== t.ns) seconds -= 1n; // floor, not toward zero
  const local = Number(seconds) + t.offsetSeconds;
  const days = Math.floor(local / 86400);
  const rem = local - days * 86400;
  const [year, month, day] = civilFromDays(days);
  const stamp = `${formatYear(year)}-${pad(month, 2)}-${pad(day, 2)}T${pad(Math.floor(rem / 3600), 2)}:${pad(Math.floor((rem % 3600) / 60), 2)}:${pad(rem % 60, 2)}`;
  if (t.offsetSeconds === 0) return `${stamp}Z`;
  const minutes = Math.trunc(Math.abs(t.offsetSeconds) / 60);
  return `${stamp}${t.offsetSeconds < 0 ? "-" : "+"}${pad(Math.floor(minutes / 60), 2)}:${pad(minutes % 60, 2)}`;
}

/**
 * Formats unix seconds as RFC3339 in UTC: the SDK's `RFC3339(x)` (`time.Unix(int64(x), 0)` in the
 * process zone, UTC in a module container).
 */
export function formatUnixSeconds(seconds: number): string {
  return formatRFC3339({ ns: BigInt(Math.trunc(seconds)) * NS_PER_SECOND, offsetSeconds: 0 });
}

const UNIT_NS = new Map<string, bigint>([
  ["ns", 1n],
  ["us", 1_000n],
  ["\u00b5s", 1_000n], // µ (micro sign)
  ["\u03bcs", 1_000n], // μ (Greek mu)
  ["ms", 1_000_000n],
  ["s", NS_PER_SECOND],
  ["m", 60n * NS_PER_SECOND],
  ["h", 3600n * NS_PER_SECOND],
]);

const LIMIT = 1n << 63n;

function isDigitCode(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * Parses a Go duration (`1h30m`, `10s`, `-1.5h`, `.5h`, `0`) into nanoseconds as Go's
 * `time.ParseDuration`; undefined when Go returns an error (syntax, unknown unit, or a value
 * beyond ±2^63-1 ns). Fractions are scaled in float64 as Go does. Source: Go time/format.go.
 */
export function parseGoDuration(text: string): bigint | undefined {
  let s = text;
  let negative = false;
  if (s !== "" && (s[0] === "-" || s[0] === "+")) {
    negative = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0n;
  if (s === "") return undefined;
  let total = 0n;
  let i = 0;
  const n = s.length;
  while (i < n) {
    const c0 = s.charCodeAt(i);
    if (!(c0 === 46 || isDigitCode(c0))) return undefined;
    const intStart = i;
    let v = 0n;
    while (i < n && isDigitCode(s.charCodeAt(i))) {
      v = v * 10n + BigInt(s.charCodeAt(i) - 48);
      if (v > LIMIT) return undefined; // overflow
      i++;
    }
    const pre = i > intStart;
    let f = 0n;
    let scale = 1;
    let post = false;
    if (i < n && s.charCodeAt(i) === 46) {
      i++;
      const fracStart = i;
      let overflow = false;
      while (i < n && isDigitCode(s.charCodeAt(i))) {
        if (!overflow) {
          const y = f * 10n + BigInt(s.charCodeAt(i) - 48);
          if (f > (LIMIT - 1n) / 10n || y > LIMIT) overflow = true;
          else {
            f = y;
            scale *= 10;
          }
        }
        i++;
      }
      post = i > fracStart;
    }
    if (!pre && !post) return undefined;
    const unitStart = i;
    while (i < n && !(s.charCodeAt(i) === 46 || isDigitCode(s.charCodeAt(i)))) i++;
    if (i === unitStart) return undefined;
    const unit = UNIT_NS.get(s.slice(unitStart, i));
    if (unit === undefined) return undefined;
    if (v > LIMIT / unit) return undefined;
    v *= unit;
    if (f > 0n) {
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > LIMIT) return undefined;
    }
    total += v;
    if (total > LIMIT) return undefined;
  }
  if (negative) return -total;
  if (total > LIMIT - 1n) return undefined;
  return total;
}

/** Go's `Duration.Seconds()`: whole seconds plus the nanosecond remainder, in float64. */
function seconds(ns: bigint): number {
  return Number(ns / NS_PER_SECOND) + Number(ns % NS_PER_SECOND) / 1e9;
}

/**
 * The SDK's `duration ± duration`: `fmt.Sprintf("%vs", l.Seconds() ± r.Seconds())` — `5400s`,
 * `-0.9s`, `1e+06s`.
 */
export function formatSecondsSum(left: bigint, right: bigint, sign: 1 | -1): string {
  return `${formatGoFloat(sign === 1 ? seconds(left) + seconds(right) : seconds(left) - seconds(right))}s`;
}
