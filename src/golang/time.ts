/**
 * Go's `time.Time` as the ported components observe it (Go 1.26 time package): the part a
 * template can reach through go_template's `now` — `UTC`, `Local` (the module containers run in
 * UTC, so Local is UTC), `Year`, `Month`, `Day`, `Hour`, `Minute`, `Second`, `Nanosecond`,
 * `YearDay`, `Weekday`, `Unix`, `UnixMilli`, `UnixMicro`, `UnixNano`, `IsZero`, `AddDate`,
 * `Format` and `String` — and the RFC 3339 texts Go writes for a time (`time.RFC3339` in cron's
 * `nextRun`, `time.RFC3339Nano` for a `time.Time` in JSON). Values print as Go prints them
 * (`2026-03-01 10:00:00 +0000 UTC`; `Now()`'s monotonic `m=+…` suffix is not reproduced).
 */
import type { GoStringer } from "./fmt.ts";

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** A Go named integer with a `String()` method (time.Month, time.Weekday). */
export class GoNamedInt implements GoStringer {
  constructor(
    readonly goType: string,
    readonly goInt: bigint,
    private readonly text: string,
  ) {}
  /** Go `String()`. */
  goString(): string {
    return this.text;
  }
}

/** Go `appendInt(b, n, width)`: zero-padded to `width` digits, a minus sign before them. */
const pad = (n: number, width: number): string => (n < 0 ? "-" + String(-n).padStart(width, "0") : String(n).padStart(width, "0"));

/** Go's `time.RFC3339` layout (whole seconds). */
export const RFC3339 = "2006-01-02T15:04:05Z07:00";
/** Go's `time.RFC3339Nano` layout (fraction without trailing zeros), what `time.Time` marshals to in JSON. */
export const RFC3339_NANO = "2006-01-02T15:04:05.999999999Z07:00";

/**
 * A Go `time.Time` with nanosecond precision in a fixed zone: UTC unless `offsetSeconds` is set
 * (a zone without a name, as Go's `time.FixedZone("", offset)`: `MST` prints it as `+0100`).
 */
export class GoTime implements GoStringer {
  readonly goType = "time.Time";
  /**
   * @param ms milliseconds since the Unix epoch
   * @param subMsNanos nanoseconds within that millisecond (0–999999)
   * @param offsetSeconds the zone's offset east of UTC, in seconds
   */
  constructor(
    readonly ms: number,
    readonly subMsNanos = 0,
    readonly offsetSeconds = 0,
  ) {}

  /** The wall clock of this time in its zone, read through the `getUTC…` accessors. */
  private get date(): Date {
    return new Date(this.ms + this.offsetSeconds * 1000);
  }
  UTC(): GoTime {
    return this.offsetSeconds === 0 ? this : new GoTime(this.ms, this.subMsNanos);
  }
  Local(): GoTime {
    return this.UTC();
  }
  Year(): bigint {
    return BigInt(this.date.getUTCFullYear());
  }
  Month(): GoNamedInt {
    const m = this.date.getUTCMonth();
    return new GoNamedInt("time.Month", BigInt(m + 1), MONTHS[m]!);
  }
  Day(): bigint {
    return BigInt(this.date.getUTCDate());
  }
  Hour(): bigint {
    return BigInt(this.date.getUTCHours());
  }
  Minute(): bigint {
    return BigInt(this.date.getUTCMinutes());
  }
  Second(): bigint {
    return BigInt(this.date.getUTCSeconds());
  }
  Nanosecond(): bigint {
    return BigInt(this.nanosOfSecond());
  }
  YearDay(): bigint {
    const d = this.date;
    return BigInt(Math.floor((Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000) + 1);
  }
  Weekday(): GoNamedInt {
    const w = this.date.getUTCDay();
    return new GoNamedInt("time.Weekday", BigInt(w), DAYS[w]!);
  }
  Unix(): bigint {
    return BigInt(Math.floor(this.ms / 1000));
  }
  UnixMilli(): bigint {
    return BigInt(this.ms);
  }
  UnixMicro(): bigint {
    return BigInt(this.ms) * 1000n + BigInt(Math.floor(this.subMsNanos / 1000));
  }
  UnixNano(): bigint {
    return BigInt(this.ms) * 1_000_000n + BigInt(this.subMsNanos);
  }
  IsZero(): boolean {
    return false;
  }
  AddDate(years: bigint, months: bigint, days: bigint): GoTime {
    const d = this.date;
    const wall = Date.UTC(
      d.getUTCFullYear() + Number(years),
      d.getUTCMonth() + Number(months),
      d.getUTCDate() + Number(days),
      d.getUTCHours(),
      d.getUTCMinutes(),
      d.getUTCSeconds(),
      d.getUTCMilliseconds(),
    );
    return new GoTime(wall - this.offsetSeconds * 1000, this.subMsNanos, this.offsetSeconds);
  }
  private nanosOfSecond(): number {
    return (((this.ms % 1000) + 1000) % 1000) * 1_000_000 + this.subMsNanos;
  }
  /** Go `Format(layout)` for the layout elements of Go's time package. */
  Format(layout: string): string {
    const d = this.date;
    const year = d.getUTCFullYear();
    const hour = d.getUTCHours();
    const nanos = this.nanosOfSecond();
    const tokens: [string, () => string][] = [
      ["January", () => MONTHS[d.getUTCMonth()]!],
      ["Jan", () => MONTHS[d.getUTCMonth()]!.slice(0, 3)],
      ["Monday", () => DAYS[d.getUTCDay()]!],
      ["Mon", () => DAYS[d.getUTCDay()]!.slice(0, 3)],
      ["MST", () => (this.offsetSeconds === 0 ? "UTC" : this.zone("", false))],
      ["2006", () => pad(year, 4)],
      ["Z07:00:00", () => this.zone(":", true, true)],
      ["Z070000", () => this.zone("", true, true)],
      ["Z07:00", () => this.zone(":", true)],
      ["Z0700", () => this.zone("", true)],
      ["Z07", () => this.zone("", true, false, true)],
      ["-07:00:00", () => this.zone(":", false, true)],
      ["-070000", () => this.zone("", false, true)],
      ["-07:00", () => this.zone(":", false)],
      ["-0700", () => this.zone("", false)],
      ["-07", () => this.zone("", false, false, true)],
      ["002", () => pad(Number(this.YearDay()), 3)],
      ["__2", () => String(Number(this.YearDay())).padStart(3, " ")],
      ["01", () => pad(d.getUTCMonth() + 1, 2)],
      ["02", () => pad(d.getUTCDate(), 2)],
      ["_2", () => String(d.getUTCDate()).padStart(2, " ")],
      ["03", () => pad(hour % 12 === 0 ? 12 : hour % 12, 2)],
      ["04", () => pad(d.getUTCMinutes(), 2)],
      ["05", () => pad(d.getUTCSeconds(), 2)],
      ["06", () => pad(year % 100, 2)],
      ["15", () => pad(hour, 2)],
      ["PM", () => (hour >= 12 ? "PM" : "AM")],
      ["pm", () => (hour >= 12 ? "pm" : "am")],
      ["1", () => String(d.getUTCMonth() + 1)],
      ["2", () => String(d.getUTCDate())],
      ["3", () => String(hour % 12 === 0 ? 12 : hour % 12)],
      ["4", () => String(d.getUTCMinutes())],
      ["5", () => String(d.getUTCSeconds())],
    ];
    let out = "";
    let k = 0;
    outer: while (k < layout.length) {
      const frac = /^[.,](0+|9+)(?![0-9])/.exec(layout.slice(k));
      if (frac) {
        const digits = pad(nanos, 9).slice(0, frac[1]!.length);
        out += frac[1]![0] === "0" ? layout[k] + digits : trimFrac(layout[k]!, digits);
        k += frac[0].length;
        continue;
      }
      for (const [tok, fn] of tokens) {
        if (layout.startsWith(tok, k)) {
          out += fn();
          k += tok.length;
          continue outer;
        }
      }
      out += layout[k];
      k++;
    }
    return out;
  }
  /**
   * The zone offset as Go's layout elements write it: `Z` for UTC in the `Z…` forms (`isoZ`), else
   * a sign and hours, then minutes (and seconds with `withSeconds`) joined by `sep`; `hoursOnly`
   * for `Z07`/`-07`. `MST` of a zone without a name is `-0700` (Go format.go `stdTZ`).
   */
  private zone(sep: string, isoZ: boolean, withSeconds = false, hoursOnly = false): string {
    const off = this.offsetSeconds;
    if (isoZ && off === 0) return "Z";
    const abs = Math.abs(off);
    const sign = off < 0 ? "-" : "+";
    const hh = pad(Math.trunc(abs / 3600), 2);
    if (hoursOnly) return sign + hh;
    const mm = pad(Math.trunc(abs / 60) % 60, 2);
    return sign + hh + sep + mm + (withSeconds ? sep + pad(abs % 60, 2) : "");
  }
  /** Go `String()`: `2006-01-02 15:04:05.999999999 -0700 MST`. */
  goString(): string {
    return this.Format("2006-01-02 15:04:05.999999999 -0700 MST");
  }
}

function trimFrac(sep: string, digits: string): string {
  const t = digits.replace(/0+$/, "");
  return t === "" ? "" : sep + t;
}

/**
 * Go's `t.Format(time.RFC3339)` (`2006-01-02T15:04:05Z07:00`) of `date` in `zone`: `"local"` the
 * process's zone and its offset on that date, `"utc"` UTC; a zero offset prints `Z`, as Go's
 * `Z07:00` element does. Cron's `nextRun` (components.md §1.16).
 */
export function formatRfc3339(date: Date, zone: "local" | "utc" = "local"): string {
  const offsetSeconds = zone === "utc" ? 0 : -date.getTimezoneOffset() * 60;
  return new GoTime(date.getTime(), 0, offsetSeconds).Format(RFC3339);
}

/**
 * Go's `time.RFC3339Nano` text, as a `time.Time` marshals to JSON (`2006-01-02T15:04:05.999999999Z07:00`:
 * the fraction's trailing zeros cut, none when whole). A `Date` is written in UTC; an RFC 3339 text
 * keeps its zone and digits and only loses the trailing zeros of its fraction (a time another
 * program wrote, with more than a Date's millisecond precision). State and payload timestamps of
 * chat, run_status and collect.
 */
export function formatRfc3339Nano(date: Date | string): string {
  if (typeof date !== "string") return new GoTime(date.getTime()).Format(RFC3339_NANO);
  return date.replace(/\.(\d*?)0+(?=Z$|[+-]\d\d:\d\d$)/, (_m, digits: string) => (digits ? `.${digits}` : ""));
}
