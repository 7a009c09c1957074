/**
 * The part of Go's `time.Time` a template can reach through go_template's `now` (Go 1.26 time
 * package): `UTC`, `Local` (the module containers run in UTC, so Local is UTC), `Year`, `Month`,
 * `Day`, `Hour`, `Minute`, `Second`, `Nanosecond`, `YearDay`, `Weekday`, `Unix`, `UnixMilli`,
 * `UnixMicro`, `UnixNano`, `IsZero`, `AddDate`, `Format` and `String`. Values print as Go prints
 * them (`2026-03-01 10:00:00 +0000 UTC`; `Now()`'s monotonic `m=+…` suffix is not reproduced).
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

const pad = (n: number, width: number) => String(n).padStart(width, "0");

/** A Go `time.Time` in UTC with nanosecond precision. */
export class GoTime implements GoStringer {
  readonly goType = "time.Time";
  /** Milliseconds since the Unix epoch, and the nanoseconds within that millisecond. */
  constructor(
    readonly ms: number,
    readonly subMsNanos = 0,
  ) {}

  private get date(): Date {
    return new Date(this.ms);
  }
  UTC(): GoTime {
    return this;
  }
  Local(): GoTime {
    return this;
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
    const t = Date.UTC(d.getUTCFullYear() + Number(years), d.getUTCMonth() + Number(months), d.getUTCDate() + Number(days), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
    return new GoTime(t, this.subMsNanos);
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
      ["MST", () => "UTC"],
      ["2006", () => pad(year, 4)],
      ["Z07:00:00", () => "Z"],
      ["Z070000", () => "Z"],
      ["Z07:00", () => "Z"],
      ["Z0700", () => "Z"],
      ["Z07", () => "Z"],
      ["-07:00:00", () => "+00:00:00"],
      ["-070000", () => "+000000"],
      ["-07:00", () => "+00:00"],
      ["-0700", () => "+0000"],
      ["-07", () => "+00"],
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
      if (frac && (k === 0 || layout[k - 1]! < "0" || layout[k - 1]! > "9" || true)) {
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
  /** Go `String()`: `2006-01-02 15:04:05.999999999 -0700 MST`. */
  goString(): string {
    return this.Format("2006-01-02 15:04:05.999999999 -0700 MST");
  }
}

function trimFrac(sep: string, digits: string): string {
  const t = digits.replace(/0+$/, "");
  return t === "" ? "" : sep + t;
}
