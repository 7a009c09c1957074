/**
 * RFC 3339 timestamps without fractional seconds, as Go's `time.Format(time.RFC3339)` writes them
 * (`2006-01-02T15:04:05Z07:00`): `Z` for UTC, `±hh:mm` otherwise. Used for cron's `nextRun`
 * (components.md §1.16).
 */
import type { CronZone } from "./cron-schedule.ts";

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, "0");

/**
 * Formats `date` in `zone` (`"local"`: the process's zone and its offset; `"utc"`: suffix `Z`).
 * Any zero offset prints `Z`, as Go's `Z07:00` layout element does.
 */
export function formatRfc3339(date: Date, zone: CronZone = "local"): string {
  if (zone === "utc" || date.getTimezoneOffset() === 0) {
    return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}Z`;
  }
  const offset = -date.getTimezoneOffset(); // minutes east of UTC
  const sign = offset >= 0 ? "+" : "-";
  return `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}${sign}${pad(Math.trunc(offset / 60))}:${pad(offset % 60)}`;
}

/**
 * RFC 3339 with nanosecond precision as Go's `time.Time` marshals to JSON (`time.RFC3339Nano`,
 * `2006-01-02T15:04:05.999999999Z07:00`: the fraction's trailing zeros cut, no fraction when
 * whole), in UTC. `date` is a `Date` or an RFC 3339 text to re-format (its zone and digits kept;
 * only the trailing zeros are cut). Used by state and payload timestamps of chat and run_status.
 */
export function formatRfc3339Nano(date: Date | string): string {
  const text = typeof date === "string" ? date : date.toISOString();
  return text.replace(/\.(\d*?)0+(?=Z$|[+-]\d\d:\d\d$)/, (_m, digits: string) => (digits ? `.${digits}` : ""));
}
