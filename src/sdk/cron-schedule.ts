/**
 * Standard 5-field cron expressions (`minute hour day-of-month month day-of-week`) and their next
 * activation time — what the `cron` component schedules by (components.md §1.16).
 *
 * Rules follow the parser the Go component uses (github.com/robfig/cron/v3 with fields
 * `Minute | Hour | Dom | Month | Dow`, no descriptors, no seconds):
 * - each field is a comma list of `*`, `?`, `n`, `a-b`, each optionally `/step`; `n/step` means
 *   `n-max/step`; months take `jan`…`dec`, weekdays `sun`…`sat` (case-insensitive);
 * - bounds: minute 0–59, hour 0–23, day-of-month 1–31, month 1–12, day-of-week 0–6 (0 = Sunday);
 * - day matching: when day-of-month or day-of-week is `*`/`?` (without a step > 1) both must match,
 *   otherwise either may (the classic Vixie-cron OR rule);
 * - `next(t)` is strictly after `t`, on a whole minute, searched at most 5 years ahead.
 * Not supported (rejected with a clear error): `@hourly`/`@every …` descriptors (the Go parser
 * rejects them too with these options) and `TZ=`/`CRON_TZ=` prefixes (docs/compatibility.md).
 *
 * Why our own parser and not a library: croner and cron-parser both disagree with Go's robfig/cron
 * on daylight-saving days and accept expressions Go refuses (bench/RESULTS.md "Our own cron
 * parser"). A wrapper would need this grammar check anyway, and neither names the field in its messages the
 * way Go's do (the tests pin Go's wording and the DST cases).
 */
import { TinyError } from "../core/errors.ts";

/** A cron expression that cannot be parsed. code `"INVALID_CRON"`; the message names the field and value. */
export class CronParseError extends TinyError {
  constructor(message: string) {
    super("INVALID_CRON", message);
  }
}

/** Which wall clock a schedule is read in: the process's local zone (as Go's `time.Now()`) or UTC. */
export type CronZone = "local" | "utc";

interface FieldBounds {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: Readonly<Record<string, number>>;
}

const MONTH_NAMES = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 } as const;
const DOW_NAMES = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } as const;

const FIELDS: readonly FieldBounds[] = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day-of-month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12, names: MONTH_NAMES },
  { name: "day-of-week", min: 0, max: 6, names: DOW_NAMES },
];

/** The set of values one field matches, plus whether it was written as a plain `*`/`?`. */
interface FieldSet {
  readonly values: readonly boolean[];
  readonly star: boolean;
}

function parseNumber(text: string, field: FieldBounds, part: string): number {
  const named = field.names?.[text.toLowerCase()];
  if (named !== undefined) return named;
  if (!/^\d+$/.test(text))
    throw new CronParseError(`${field.name} field: ${JSON.stringify(text)} is not a number${field.names ? " or a name" : ""} (in ${JSON.stringify(part)})`);
  return Number(text);
}

function parsePart(part: string, field: FieldBounds, values: boolean[]): boolean {
  const rangeAndStep = part.split("/");
  if (rangeAndStep.length > 2) throw new CronParseError(`${field.name} field: too many slashes in ${JSON.stringify(part)}`);
  const range = rangeAndStep[0]!;
  const lowHigh = range.split("-");
  if (lowHigh.length > 2) throw new CronParseError(`${field.name} field: too many hyphens in ${JSON.stringify(part)}`);
  let start: number;
  let end: number;
  let star = false;
  if (range === "*" || range === "?") {
    start = field.min;
    end = field.max;
    star = true;
  } else {
    start = parseNumber(lowHigh[0]!, field, part);
    end = lowHigh.length === 2 ? parseNumber(lowHigh[1]!, field, part) : start;
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    const stepText = rangeAndStep[1]!;
    if (!/^\d+$/.test(stepText)) throw new CronParseError(`${field.name} field: step ${JSON.stringify(stepText)} is not a number (in ${JSON.stringify(part)})`);
    step = Number(stepText);
    if (lowHigh.length === 1 && !star) end = field.max; // "n/step" means "n-max/step"
    if (step > 1) star = false;
  }
  if (start < field.min) throw new CronParseError(`${field.name} field: beginning of range (${start}) below minimum (${field.min}): ${JSON.stringify(part)}`);
  if (end > field.max) throw new CronParseError(`${field.name} field: end of range (${end}) above maximum (${field.max}): ${JSON.stringify(part)}`);
  if (start > end) throw new CronParseError(`${field.name} field: beginning of range (${start}) beyond end of range (${end}): ${JSON.stringify(part)}`);
  if (step === 0) throw new CronParseError(`${field.name} field: step of range should be a positive number: ${JSON.stringify(part)}`);
  for (let v = start; v <= end; v += step) values[v] = true;
  return star;
}

function parseField(text: string, field: FieldBounds): FieldSet {
  const values: boolean[] = new Array<boolean>(field.max + 1).fill(false);
  let star = false;
  for (const part of text.split(",")) {
    if (part === "") throw new CronParseError(`${field.name} field: empty list item in ${JSON.stringify(text)}`);
    if (parsePart(part, field, values)) star = true;
  }
  return { values, star };
}

/** Wall-clock fields of an instant in one zone (month 1–12, weekday 0 = Sunday). */
interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number;
}

interface Clock {
  wall(t: number): Wall;
  /** The instant of a wall time; out-of-range parts normalise like Go's `time.Date`. */
  at(year: number, month: number, day: number, hour: number, minute: number): number;
}

const UTC_CLOCK: Clock = {
  wall(t) {
    const d = new Date(t);
    return {
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      day: d.getUTCDate(),
      hour: d.getUTCHours(),
      minute: d.getUTCMinutes(),
      second: d.getUTCSeconds(),
      weekday: d.getUTCDay(),
    };
  },
  at: (year, month, day, hour, minute) => Date.UTC(year, month - 1, day, hour, minute),
};

const LOCAL_CLOCK: Clock = {
  wall(t) {
    const d = new Date(t);
    return {
      year: d.getFullYear(),
      month: d.getMonth() + 1,
      day: d.getDate(),
      hour: d.getHours(),
      minute: d.getMinutes(),
      second: d.getSeconds(),
      weekday: d.getDay(),
    };
  },
  at: (year, month, day, hour, minute) => new Date(year, month - 1, day, hour, minute).getTime(),
};

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

/** A parsed cron expression. */
export class CronSchedule {
  readonly #minute: FieldSet;
  readonly #hour: FieldSet;
  readonly #dom: FieldSet;
  readonly #month: FieldSet;
  readonly #dow: FieldSet;

  /** @param expression the source text, as given (kept for display and metadata). */
  constructor(
    readonly expression: string,
    fields: readonly [FieldSet, FieldSet, FieldSet, FieldSet, FieldSet],
  ) {
    [this.#minute, this.#hour, this.#dom, this.#month, this.#dow] = fields;
  }

  #dayMatches(w: Wall): boolean {
    const dom = this.#dom.values[w.day] === true;
    const dow = this.#dow.values[w.weekday] === true;
    if (this.#dom.star || this.#dow.star) return dom && dow;
    return dom || dow;
  }

  /**
   * The first activation strictly after `after`, or `undefined` when none falls within 5 years
   * (e.g. `0 0 30 2 *`). Same search as robfig/cron `SpecSchedule.Next`.
   * @param zone the wall clock the fields are read in; default `"local"` (the Go component uses
   *   `time.Now()`, i.e. the process's zone).
   */
  next(after: Date, zone: CronZone = "local"): Date | undefined {
    const clock = zone === "utc" ? UTC_CLOCK : LOCAL_CLOCK;
    let t = Math.floor(after.getTime() / 1000) * 1000 + 1000; // round up to the next whole second
    let added = false;
    const yearLimit = clock.wall(t).year + 5;
    wrap: for (;;) {
      let w = clock.wall(t);
      if (w.year > yearLimit) return undefined;
      while (!this.#month.values[w.month]) {
        if (!added) added = true;
        t = clock.at(w.year, w.month + 1, 1, 0, 0);
        w = clock.wall(t);
        if (w.month === 1) continue wrap;
      }
      while (!this.#dayMatches(w)) {
        if (!added) added = true;
        t = clock.at(w.year, w.month, w.day + 1, 0, 0);
        w = clock.wall(t);
        if (w.day === 1) continue wrap;
      }
      while (!this.#hour.values[w.hour]) {
        if (!added) {
          added = true;
          t = clock.at(w.year, w.month, w.day, w.hour, 0);
        }
        t += HOUR_MS;
        w = clock.wall(t);
        if (w.hour === 0) continue wrap;
      }
      while (!this.#minute.values[w.minute]) {
        if (!added) {
          added = true;
          t -= t % MINUTE_MS;
        }
        t += MINUTE_MS;
        w = clock.wall(t);
        if (w.minute === 0) continue wrap;
      }
      if (w.second !== 0) {
        // 5-field schedules fire on second 0: move to the next minute and check it again.
        t = t - (t % MINUTE_MS) + MINUTE_MS;
        added = true;
        continue wrap;
      }
      return new Date(t);
    }
  }
}

/**
 * Parses a 5-field cron expression (fields separated by whitespace).
 * @throws CronParseError (`INVALID_CRON`) naming the field and the offending text: empty
 *   expression, not exactly 5 fields, a descriptor (`@hourly`) or zone prefix, a non-number, a
 *   value out of the field's bounds, a reversed range, a zero step.
 */
export function parseCron(expression: string): CronSchedule {
  const text = expression.trim();
  if (text === "") throw new CronParseError("empty cron expression");
  if (text.startsWith("@")) throw new CronParseError(`descriptors are not accepted, use 5 fields: ${JSON.stringify(text)}`);
  if (/^(CRON_)?TZ=/.test(text)) throw new CronParseError(`time zone prefixes are not supported: ${JSON.stringify(text)}`);
  const parts = text.split(/\s+/);
  if (parts.length !== 5)
    throw new CronParseError(`expected exactly 5 fields (minute hour day-of-month month day-of-week), found ${parts.length}: ${JSON.stringify(text)}`);
  const fields = parts.map((p, i) => parseField(p, FIELDS[i]!)) as [FieldSet, FieldSet, FieldSet, FieldSet, FieldSet];
  return new CronSchedule(expression, fields);
}
