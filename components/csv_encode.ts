/**
 * `csv_encode` — "CSV Encoder" (Go encoding-module `components/csv/encode`): writes the objects of
 * `request.rows` as CSV and emits `{context, encoded, columns, count}` on `response`.
 *
 * Columns are the `columns` setting in its order, or else every key found across the rows, sorted
 * (Go's string order). A header line comes first unless `omitHeader`. Cells: null or a missing key
 * → empty (or, with `failOnMissing`, a failure for the missing key), strings as they are, booleans
 * `true`/`false`, numbers without exponent (`7`, `1.5`, `1000000000000000000000`), lists and
 * objects as Go's `fmt.Sprint` writes them (`[a b]`, `map[k:v]`). The text is Go's `csv.Writer`'s
 * (src/golang/csv.ts: quoting of the delimiter, quotes, line breaks and leading spaces; `\n` line
 * ends). A row that is not an object fails the hop, or with `enableErrorPort` goes to `error`.
 *
 * Deliberate difference (docs/compatibility.md "encoding-module"): it answers agent-tool calls
 * (Go tags it `agent_tool` without implementing the capability).
 */
import {
  compareGoStrings,
  contextField,
  defineComponent,
  fail,
  formatFloat,
  goQuote,
  goSprint,
  goTypeName,
  mark,
  source,
  stringEnum,
  target,
  TinyError,
  Type,
  writeGoCsv,
  type Static,
} from "tinyhost";

const DELIMITERS: Record<string, string> = { comma: ",", semicolon: ";", tab: "\t", pipe: "|" };

const Settings = Type.Object(
  {
    delimiter: stringEnum(["comma", "semicolon", "tab", "pipe"], {
      title: "Delimiter",
      default: "comma",
      enumTitles: ["Comma ,", "Semicolon ;", "Tab", "Pipe |"],
    }),
    columns: Type.Optional(
      Type.Union([Type.Array(Type.String({ $id: "String" })), Type.Null()], {
        title: "Columns",
        description:
          "The columns to write, in order. Leave empty to use every key found across the rows, sorted — deterministic, but rarely the order a reader wants. Naming them also drops the fields a report should not carry.",
      }),
    ),
    omitHeader: Type.Optional(
      Type.Boolean({
        title: "Omit The Header Row",
        description: "Off (default): the first line names the columns. On: rows only, for appending to a file that already has a header.",
      }),
    ),
    failOnMissing: Type.Optional(
      Type.Boolean({
        title: "Fail When A Row Is Missing A Column",
        description: "Off (default): a row without one of the columns gets an empty cell. On: it fails, for a report where a blank would be read as a zero.",
      }),
    ),
    enableErrorPort: Type.Optional(Type.Boolean({ title: "Enable Error Port", description: "Output errors to the error port instead of failing the run." })),
  },
  { $id: "Settings" },
);
type Settings = Required<Static<typeof Settings>>;

const Request = Type.Object(
  {
    context: Type.Optional(contextField("Passthrough, emitted with the encoded file.")),
    rows: Type.Union([Type.Array(Type.Unknown()), Type.Null()], {
      title: "Rows",
      description:
        "The objects to write, one row each. Map an upstream array straight in: {{$.rows}}. Wire collect before this when the rows arrive one at a time.",
    }),
  },
  { $id: "Request" },
);

const Response = Type.Object(
  {
    context: Type.Optional(mark(Type.Unknown({ $id: "Context" }), { configurable: true, title: "Context" })),
    encoded: Type.Optional(Type.String({ title: "CSV", description: "The encoded file, ready for an attachment, an object write or an HTTP body." })),
    columns: Type.Optional(
      Type.Union([Type.Array(Type.String({ $id: "String" })), Type.Null()], { title: "Columns", description: "The columns written, in order." }),
    ),
    count: Type.Optional(Type.Integer({ title: "Count", description: "Rows written, not counting the header." })),
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

/** Go's zero `Settings` (Instance() sets none). */
const ZERO_SETTINGS: Settings = { delimiter: "", columns: null, omitHeader: false, failOnMissing: false, enableErrorPort: false };

/** A row that cannot be written; `message` is Go's text. code `CSV_ENCODE`. */
export class CsvEncodeError extends TinyError<"CSV_ENCODE"> {
  constructor(message: string) {
    super("CSV_ENCODE", message);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The CSV text of `rows` under `settings`, with the columns written.
 * @throws CsvEncodeError for a row that is not an object, or (failOnMissing) a missing column.
 */
export function encodeCsv(rows: readonly unknown[], settings: Settings): { encoded: string; columns: string[] } {
  rows.forEach((row, i) => {
    if (!isObject(row)) throw new CsvEncodeError(`row ${i} is ${goTypeName(row)}, not an object — csv_encode writes objects as rows, one key per column`);
  });
  const objects = rows as Record<string, unknown>[];
  const columns = settings.columns && settings.columns.length > 0 ? [...settings.columns] : keysOf(objects);
  const records: string[][] = settings.omitHeader ? [] : [columns];
  objects.forEach((row, i) => {
    records.push(
      columns.map((column) => {
        const present = Object.hasOwn(row, column);
        if (!present && settings.failOnMissing)
          throw new CsvEncodeError(`row ${i} has no ${goQuote(column)} — an empty cell would read as a value it does not have`);
        return cell(present ? row[column] : null);
      }),
    );
  });
  return { encoded: writeGoCsv(records, DELIMITERS[settings.delimiter] ?? ","), columns };
}

/** Every key across all rows, in Go's sorted string order. */
function keysOf(rows: readonly Record<string, unknown>[]): string[] {
  const seen = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) seen.add(key);
  return [...seen].sort(compareGoStrings);
}

/** One cell: Go's `cell` (numbers 'f' with the fewest digits, other values fmt.Sprint). */
function cell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return formatFloat(value, "f", -1);
  return goSprint(value);
}

/** `{context}` when there is one (Go `json:"context,omitempty"`), then `rest`. */
function withContext<T extends object>(context: unknown, rest: T): T & { context?: unknown } {
  return context === null || context === undefined ? rest : { context, ...rest };
}

export default defineComponent({
  info: {
    name: "csv_encode",
    description: "CSV Encoder",
    info:
      "Writes objects out as CSV, quoting whatever needs it — a value containing the delimiter, a quote or a " +
      "newline survives instead of shifting every column after it. " +
      "Set columns to fix the order and to leave out fields a report should not carry; without it the columns are " +
      "every key found, sorted, which is stable but rarely the order a reader wants. " +
      "Wire collect before this when the rows arrive one at a time.",
    tags: ["csv"],
  },
  agentTool: { inputPort: "request", outputPort: "response" },
  state: () => ({ settings: { ...ZERO_SETTINGS } }),
  ports: (self) => [
    target("request", Request, { label: "Request", position: "left", default: { rows: null } }),
    source("response", Response, { label: "Response", position: "right", default: { encoded: "", columns: null, count: 0 } }),
    target("_settings", Settings, { label: "Settings", default: self.settings }),
    ...(self.settings.enableErrorPort ? [source("error", ErrorOut, { label: "Error", position: "bottom", default: { error: "" } })] : []),
  ],
  onSettings(ctx, settings) {
    ctx.self.settings = { ...ZERO_SETTINGS, ...settings, columns: settings.columns ?? null } as Settings;
  },
  handle(ctx, output, _port, data) {
    const context = data.context ?? null;
    const rows = data.rows ?? [];
    let encoded: { encoded: string; columns: string[] };
    try {
      encoded = encodeCsv(rows, ctx.self.settings);
    } catch (err) {
      if (!(err instanceof CsvEncodeError) || !ctx.self.settings.enableErrorPort) return fail(err);
      return output("error", withContext(context, { error: err.message }));
    }
    return output("response", withContext(context, { encoded: encoded.encoded, columns: encoded.columns, count: rows.length }));
  },
});
