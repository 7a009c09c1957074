/**
 * `csv_decode` — "CSV Decoder" (Go encoding-module `components/csv/decode`): parses the CSV text
 * of `request.encoded` into one object per record on `response` `{context, rows, headers, count,
 * truncated}`.
 *
 * Parsing is Go's `encoding/csv` (src/golang/csv.ts: its quoting, CRLF, blank-line and error
 * rules, checked against Go in test/conformance/encoding). The first record names the columns
 * (trimmed; blank → `col<N>`; repeats → `name_1`, `name_2`) unless `noHeader`, when every column
 * is `col<N>`. Every field is a string unless `inferTypes`: then `true`/`false` (any case) become
 * booleans and a decimal number without a leading zero (`007`, `01234` stay strings) a number.
 * A record whose field count differs from the first fails unless `allowRagged` (short rows padded
 * with `""`, extra fields as `col<N>`). At most `maxRows` records (0 = 10000); one more sets
 * `truncated`. A failure fails the hop with `csv: <Go's parse error>`, or with `enableErrorPort`
 * goes to `error` `{context, error}`.
 *
 * Deliberate differences from Go (docs/compatibility.md "encoding-module"): a leading byte-order
 * mark is dropped (Go makes it part of the first column's name); a generated `name_N` never
 * collides with a later header of that name (Go then loses a column); `inf`/`nan` are not inferred
 * as numbers (Go's message then cannot be encoded as JSON); it answers agent-tool calls (Go tags
 * it `agent_tool` without implementing the capability). Row keys are written in Go's sorted order.
 */
import {
  contextField,
  CsvParseError,
  defineComponent,
  fail,
  GoCsvReader,
  mark,
  source,
  stringEnum,
  target,
  TinyError,
  trimGoSpace,
  Type,
  type Static,
} from "tinyhost";

const DEFAULT_MAX_ROWS = 10000;
const DELIMITERS: Record<string, string> = { comma: ",", semicolon: ";", tab: "\t", pipe: "|" };

const Settings = Type.Object(
  {
    delimiter: stringEnum(["comma", "semicolon", "tab", "pipe"], {
      title: "Delimiter",
      description: "The field separator. European exports and anything produced from a locale that uses a comma for decimals are usually semicolon-separated.",
      default: "comma",
      enumTitles: ["Comma ,", "Semicolon ;", "Tab", "Pipe |"],
    }),
    noHeader: Type.Optional(
      Type.Boolean({
        title: "First Row Is Data, Not A Header",
        description:
          "Off (default): the first record names the columns. On: there is no header, and columns are named col1, col2 … so the output shape stays an object either way.",
      }),
    ),
    trimSpace: Type.Optional(
      Type.Boolean({
        title: "Trim Leading Space",
        description: "Ignore space that follows a delimiter. Turn this on for a file written with ', ' between fields.",
      }),
    ),
    lazyQuotes: Type.Optional(
      Type.Boolean({
        title: "Tolerate Bad Quoting",
        description:
          "Accept a bare quote inside an unquoted field instead of failing. Real exports contain them; the cost is that a genuinely malformed file decodes to something wrong rather than reporting itself.",
      }),
    ),
    allowRagged: Type.Optional(
      Type.Boolean({
        title: "Allow Rows With Missing Or Extra Fields",
        description:
          "On: a short row has its missing columns filled with empty strings and extra fields land in col<N>. Off (default): a row whose field count differs from the header fails, so a shifted file is reported rather than silently mis-keyed.",
      }),
    ),
    inferTypes: Type.Optional(
      Type.Boolean({
        title: "Infer Numbers And Booleans",
        description:
          "On: a field that parses as a number or as true/false becomes one, so a downstream $.restarts > 3 works. Off (default): every field stays a string. Leave it off when a column holds an identifier — 007 and 01234 do not survive inference.",
      }),
    ),
    maxRows: Type.Optional(
      Type.Integer({ title: "Max Rows", description: "Ceiling on records from one file. Reaching it sets truncated.", default: DEFAULT_MAX_ROWS }),
    ),
    rows: Type.Optional(
      mark(Type.Unknown({ $id: "Rows" }), {
        configurable: true,
        title: "Rows shape",
        description:
          "An example of the decoded rows — one representative object is enough. A CSV string has no shape, so without this every downstream edge is unverifiable: {{$.rows[0].amount}} is accepted when the flow is built and resolves to null at runtime.",
      }),
    ),
    enableErrorPort: Type.Optional(Type.Boolean({ title: "Enable Error Port", description: "Output errors to the error port instead of failing the run." })),
  },
  { $id: "Settings" },
);
type Settings = Static<typeof Settings>;

const Request = Type.Object(
  {
    context: Type.Optional(contextField("Passthrough — carry the file's name or source here so a row can be traced back to it.")),
    encoded: Type.String({ title: "CSV", description: "The CSV text to decode.", format: "textarea" }),
  },
  { $id: "Request" },
);

const Response = Type.Object(
  {
    context: Type.Optional(mark(Type.Unknown({ $id: "Context" }), { configurable: true, title: "Context" })),
    rows: Type.Optional(
      mark(Type.Unknown({ $id: "Rows" }), {
        configurable: true,
        title: "Rows",
        description: "One object per record. Wire through array_split so each row arrives as its own message.",
      }),
    ),
    headers: Type.Optional(
      Type.Union([Type.Array(Type.String({ $id: "String" })), Type.Null()], {
        title: "Headers",
        description: "The column names used as keys. Check these when a mapping comes back empty — an export that renamed a column breaks quietly otherwise.",
      }),
    ),
    count: Type.Optional(Type.Integer({ title: "Count" })),
    truncated: Type.Optional(Type.Boolean({ title: "Truncated", description: "True when the file had more records than maxRows and the rest were dropped." })),
  },
  { $id: "Response" },
);

const ErrorOut = Type.Object(
  {
    context: Type.Optional(mark(Type.Unknown({ $id: "Context" }), { configurable: true, title: "Context" })),
    error: Type.Optional(Type.String({ title: "Error" })),
  },
  { $id: "Error" },
);

/** Go's zero `Settings`: what a node publishes before its settings arrive (Instance() sets none). */
const ZERO_SETTINGS: Required<Settings> = {
  delimiter: "",
  noHeader: false,
  trimSpace: false,
  lazyQuotes: false,
  allowRagged: false,
  inferTypes: false,
  maxRows: 0,
  rows: null,
  enableErrorPort: false,
};

/** The decoded table. */
export interface DecodedCsv {
  rows: Record<string, unknown>[];
  headers: string[];
  truncated: boolean;
}

/**
 * Decodes `text` as csv_decode does with `settings`.
 * @throws CsvParseError (Go's parse errors) for a malformed file or a ragged row when not allowed.
 */
export function decodeCsv(text: string, settings: Required<Settings>): DecodedCsv {
  const reader = new GoCsvReader(text.startsWith("\ufeff") ? text.slice(1) : text, {
    comma: DELIMITERS[settings.delimiter] ?? ",",
    trimLeadingSpace: settings.trimSpace,
    lazyQuotes: settings.lazyQuotes,
    fieldsPerRecord: settings.allowRagged ? -1 : 0,
  });
  const maxRows = settings.maxRows > 0 ? settings.maxRows : DEFAULT_MAX_ROWS;
  const rows: Record<string, unknown>[] = [];
  let headers: string[] | undefined;
  let order: number[] = [];
  for (let record = reader.read(); record !== null; record = reader.read()) {
    if (headers === undefined) {
      headers = headersFrom(record, !settings.noHeader);
      order = goKeyOrder(headers);
      if (!settings.noHeader) continue;
    }
    if (rows.length >= maxRows) return { rows, headers, truncated: true };
    rows.push(row(record, headers, order, settings.inferTypes));
  }
  return { rows, headers: headers ?? [], truncated: false };
}

/** Column names: the header's trimmed fields (blank → `col<N>`), or all `col<N>` without one; unique. */
function headersFrom(record: readonly string[], hasHeader: boolean): string[] {
  const names = record.map((field, i) => {
    const trimmed = hasHeader ? trimGoSpace(field) : "";
    return trimmed !== "" ? trimmed : columnName(i);
  });
  // Go's scheme (a repeat of `x` becomes `x_1`, `x_2` …), made collision-free: a generated name
  // that another column already has moves on to the next suffix instead of overwriting it.
  const taken = new Set<string>();
  const repeats = new Map<string, number>();
  return names.map((name) => {
    if (!taken.has(name)) {
      taken.add(name);
      repeats.set(name, repeats.get(name) ?? 0);
      return name;
    }
    let n = repeats.get(name) ?? 0;
    let candidate: string;
    do candidate = `${name}_${++n}`;
    while (taken.has(candidate));
    repeats.set(name, n);
    taken.add(candidate);
    return candidate;
  });
}

function columnName(i: number): string {
  return `col${i + 1}`;
}

/** Indexes of `names` in Go's map-key order (byte order of UTF-8, which code-point order equals). */
function goKeyOrder(names: readonly string[]): number[] {
  return names.map((_, i) => i).sort((a, b) => compareCodePoints(names[a]!, names[b]!));
}

function compareCodePoints(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

function row(record: readonly string[], headers: readonly string[], order: readonly number[], infer: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const i of order) out[headers[i]!] = i < record.length ? value(record[i]!, infer) : ""; // a short row's missing column is "" (allowRagged)
  for (let i = headers.length; i < record.length; i++) out[columnName(i)] = value(record[i]!, infer);
  return out;
}

/** Go `strconv.ParseFloat` syntax for finite decimal numbers (after the leading-zero check). */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

function value(field: string, infer: boolean): unknown {
  if (!infer) return field;
  const trimmed = trimGoSpace(field);
  if (trimmed === "") return field;
  const lower = trimmed.toLowerCase();
  if (lower === "true") return true;
  if (lower === "false") return false;
  if (leadingZero(trimmed) || !DECIMAL.test(trimmed)) return field;
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : field; // 1e400 is out of range for Go too
}

/** `007`, `-01234`: an identifier that happens to be digits (but `0.5` is a number). */
function leadingZero(s: string): boolean {
  const t = s.startsWith("-") ? s.slice(1) : s;
  const u = t.startsWith("+") ? t.slice(1) : t;
  return u.length > 1 && u[0] === "0" && u[1] !== ".";
}

/** Go `Settings` as decoded: every field present. */
function settingsOf(s: Settings): Required<Settings> {
  return { ...ZERO_SETTINGS, ...s, rows: s.rows ?? null } as Required<Settings>;
}

/** `{context}` when there is one (Go `json:"context,omitempty"`), then `rest`. */
function withContext<T extends object>(context: unknown, rest: T): T & { context?: unknown } {
  return context === null || context === undefined ? rest : { context, ...rest };
}

export default defineComponent({
  info: {
    name: "csv_decode",
    description: "CSV Decoder",
    info:
      "Parses CSV into one object per row, with quoting, embedded newlines and escaped delimiters handled — the " +
      "things a hand-written split gets wrong in a way that shifts every column after the offending field. " +
      "SET THE `rows` SETTING to an example row, for the same reason json_decode needs one: a string has no shape, " +
      "so an expression over a column nobody declared resolves to null at runtime instead of failing when the flow " +
      "is built. " +
      "Wire array_split after it so each row arrives as its own message. " +
      "Every field is a string unless inferTypes is on — turn it on when a column is compared or summed, and leave " +
      "it off when a column holds an identifier, because 007 and 01234 do not survive inference. " +
      "Check truncated: a file larger than maxRows is decoded in part.",
    tags: ["csv"],
  },
  agentTool: { inputPort: "request", outputPort: "response" },
  state: () => ({ settings: { ...ZERO_SETTINGS } }),
  ports: (self) => [
    target("request", Request, { label: "Request", position: "left", default: { encoded: "" } }),
    source("response", Response, { label: "Response", position: "right", default: { rows: self.settings.rows, headers: null, count: 0, truncated: false } }),
    target("_settings", Settings, { label: "Settings", default: self.settings }),
    ...(self.settings.enableErrorPort ? [source("error", ErrorOut, { label: "Error", position: "bottom", default: { error: "" } })] : []),
  ],
  onSettings(ctx, settings) {
    ctx.self.settings = settingsOf(settings);
  },
  handle(ctx, output, _port, data) {
    const context = data.context ?? null;
    let decoded: DecodedCsv;
    try {
      decoded = decodeCsv(data.encoded, ctx.self.settings);
    } catch (err) {
      if (!(err instanceof CsvParseError)) throw err;
      const error = new TinyError("CSV_PARSE", `csv: ${err.message}`, { cause: err }); // Go: fmt.Errorf("csv: %w", err)
      if (!ctx.self.settings.enableErrorPort) return fail(error);
      return output("error", withContext(context, { error: error.message }));
    }
    const { rows, headers, truncated } = decoded;
    return output("response", withContext(context, { rows, headers, count: rows.length, truncated }));
  },
});
