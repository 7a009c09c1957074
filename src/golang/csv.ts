/**
 * CSV as Go's `encoding/csv` reads and writes it (Go 1.26 `encoding/csv/reader.go`,
 * `writer.go`; RFC 4180 with Go's rules), for csv_decode and csv_encode.
 *
 * Written here rather than taken from npm: csv-parse and papaparse were the candidates, and
 * neither reproduces what a Go flow observes — Go's error texts with their line and byte column
 * (`parse error on line 2, column 11: bare " in non-quoted-field`), `\r\n` folded to `\n` inside
 * quoted fields, a lone `\r` kept, empty lines skipped, the record count checked against the first
 * record, and `TrimLeadingSpace` / `LazyQuotes` exactly. The reader works on UTF-8 bytes so
 * columns are Go's byte columns. test/conformance/encoding/go.jsonl holds Go's outputs for a
 * corpus of hostile inputs (test/conformance/encoding/csv-cases.ts) and test/unit/golang/encoding-conformance.test.ts compares.
 */
import { TinyError } from "../core/errors.ts";
import { isGoSpace, utf8Bytes, utf8String, wellFormed } from "./unicode.ts";

/** Go `csv.ErrBareQuote`, `ErrQuote`, `ErrFieldCount` texts. */
export const CSV_ERRORS = {
  bareQuote: 'bare " in non-quoted-field',
  quote: 'extraneous or missing " in quoted-field',
  fieldCount: "wrong number of fields",
} as const;

/** Go `csv.ParseError`: where a record went wrong; `message` is Go's `Error()` text. code `CSV_PARSE`. */
export class CsvParseError extends TinyError<"CSV_PARSE"> {
  /** Line (1-based) where the record starts. */
  readonly startLine: number;
  /** Line (1-based) where the error occurred. */
  readonly line: number;
  /** Column (1-based byte index in the line) where the error occurred. */
  readonly column: number;
  /** One of {@link CSV_ERRORS}. */
  readonly reason: string;
  constructor(startLine: number, line: number, column: number, reason: string) {
    super("CSV_PARSE", parseErrorText(startLine, line, column, reason));
    this.startLine = startLine;
    this.line = line;
    this.column = column;
    this.reason = reason;
  }
}

function parseErrorText(startLine: number, line: number, column: number, reason: string): string {
  if (reason === CSV_ERRORS.fieldCount) return `record on line ${line}: ${reason}`;
  if (startLine !== line) return `record on line ${startLine}; parse error on line ${line}, column ${column}: ${reason}`;
  return `parse error on line ${line}, column ${column}: ${reason}`;
}

/** Options of {@link GoCsvReader} (Go `csv.Reader` fields). */
export interface CsvReadOptions {
  /** Field delimiter, one ASCII character other than `"`, `\r`, `\n`; default `,`. */
  comma?: string;
  /** Go `TrimLeadingSpace`: skip Unicode white space at the start of a field. */
  trimLeadingSpace?: boolean;
  /** Go `LazyQuotes`: a quote may appear in an unquoted field, a lone quote in a quoted one. */
  lazyQuotes?: boolean;
  /**
   * Go `FieldsPerRecord`: > 0 every record must have that many fields; 0 (default) every record
   * must have as many as the first; < 0 any number.
   */
  fieldsPerRecord?: number;
}

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/**
 * Reads records one at a time from CSV text, as Go's `csv.Reader.Read` does, so a caller that
 * stops early (a row limit) never sees an error further on.
 */
export class GoCsvReader {
  readonly #buf: Uint8Array;
  readonly #comma: number;
  readonly #trim: boolean;
  readonly #lazy: boolean;
  #fieldsPerRecord: number;
  #offset = 0;
  #numLine = 0;

  /**
   * @param text - the CSV text (a string from JSON; lone surrogates read as U+FFFD, as in Go).
   * @throws TypeError when `comma` is not one ASCII character or is `"`, `\r` or `\n` (Go `errInvalidDelim`).
   */
  constructor(text: string, options: CsvReadOptions = {}) {
    const comma = options.comma ?? ",";
    const code = comma.charCodeAt(0);
    if (comma.length !== 1 || code >= 0x80 || code === QUOTE || code === CR || code === LF) {
      throw new TypeError(`csv: invalid field delimiter ${JSON.stringify(comma)}: one ASCII character other than a quote or a line break`);
    }
    this.#buf = utf8Bytes(text);
    this.#comma = code;
    this.#trim = options.trimLeadingSpace ?? false;
    this.#lazy = options.lazyQuotes ?? false;
    this.#fieldsPerRecord = options.fieldsPerRecord ?? 0;
  }

  /**
   * Go `readLine`: the next physical line including its `\n`, with `\r\n` folded to `\n` and a
   * `\r` ending the input dropped; `undefined` at the end of the input.
   */
  #readLine(): { start: number; end: number; nl: boolean } | undefined {
    const buf = this.#buf;
    if (this.#offset >= buf.length) return undefined;
    const start = this.#offset;
    const at = buf.indexOf(LF, start);
    const next = at < 0 ? buf.length : at + 1;
    this.#offset = next;
    this.#numLine++;
    let end = next;
    if (at < 0) {
      if (end > start && buf[end - 1] === CR) end--; // Go drops a trailing \r at EOF
      return { start, end, nl: false };
    }
    // "\r\n" → "\n": the line ends at the \n; a preceding \r is excluded from the content.
    if (end - start >= 2 && buf[end - 2] === CR) return { start, end: end - 2, nl: true };
    return { start, end: end - 1, nl: true };
  }

  /**
   * The next record, or `null` after the last one (Go `io.EOF`).
   * @throws CsvParseError on a quoting error or a record of the wrong length (Go `ParseError`).
   */
  read(): string[] | null {
    const buf = this.#buf;
    let line: { start: number; end: number; nl: boolean } | undefined;
    // Skip empty lines (Go: a line holding only its newline).
    for (;;) {
      line = this.#readLine();
      if (line === undefined) return null;
      if (line.end === line.start && line.nl) continue;
      if (line.end === line.start && !line.nl) return null; // a lone "\r" at EOF reads as nothing
      break;
    }
    const recLine = this.#numLine;
    const fields: string[] = [];
    const comma = this.#comma;
    let pos = line.start; // read position in buf
    let end = line.end; // content end of the current line (before its \n)
    let nl = line.nl;
    let col = 1;
    let errLine = this.#numLine;
    let error: CsvParseError | undefined;
    const chunks: Uint8Array[] = [];
    parse: for (;;) {
      if (this.#trim) {
        // Go trims the newline too when only space is left; the column never counts it.
        const skipped = skipSpace(buf, pos, end);
        col += skipped - pos;
        pos = skipped;
      }
      if (pos >= end || buf[pos] !== QUOTE) {
        // Unquoted field: up to the next delimiter or the end of the line.
        let i = buf.indexOf(comma, pos);
        if (i >= end) i = -1;
        const fieldEnd = i >= 0 ? i : end;
        if (!this.#lazy) {
          const j = buf.indexOf(QUOTE, pos);
          if (j >= 0 && j < fieldEnd) {
            error = new CsvParseError(recLine, this.#numLine, col + (j - pos), CSV_ERRORS.bareQuote);
            break parse;
          }
        }
        fields.push(utf8String(buf.subarray(pos, fieldEnd)));
        if (i >= 0) {
          col += i + 1 - pos;
          pos = i + 1;
          continue parse;
        }
        break parse;
      }
      // Quoted field.
      pos++;
      col++;
      chunks.length = 0;
      for (;;) {
        let i = buf.indexOf(QUOTE, pos);
        if (i >= end) i = -1;
        if (i >= 0) {
          chunks.push(buf.subarray(pos, i));
          col += i + 1 - pos;
          pos = i + 1;
          const rest = pos < end ? buf[pos]! : undefined;
          if (rest === QUOTE) {
            chunks.push(QUOTE_BYTES);
            pos++;
            col++;
          } else if (rest === comma) {
            pos++;
            col++;
            fields.push(joinChunks(chunks));
            continue parse;
          } else if (rest === undefined) {
            fields.push(joinChunks(chunks));
            break parse;
          } else if (this.#lazy) {
            chunks.push(QUOTE_BYTES);
          } else {
            error = new CsvParseError(recLine, this.#numLine, col - 1, CSV_ERRORS.quote);
            break parse;
          }
        } else if (end > pos || nl) {
          // The field goes on past this line: keep the rest of it and its newline.
          chunks.push(buf.subarray(pos, end));
          if (nl) chunks.push(LF_BYTES);
          col += end - pos + (nl ? 1 : 0);
          const nextLine = this.#readLine();
          if (nextLine === undefined) {
            pos = end = buf.length;
            nl = false;
            continue;
          }
          pos = nextLine.start;
          end = nextLine.end;
          nl = nextLine.nl;
          if (end > pos || nl) {
            errLine++;
            col = 1;
          }
        } else {
          // End of input inside a quoted field.
          if (!this.#lazy) {
            error = new CsvParseError(recLine, errLine, col, CSV_ERRORS.quote);
            break parse;
          }
          fields.push(joinChunks(chunks));
          break parse;
        }
      }
    }
    if (error) throw error;
    if (this.#fieldsPerRecord > 0) {
      if (fields.length !== this.#fieldsPerRecord) throw new CsvParseError(recLine, recLine, 1, CSV_ERRORS.fieldCount);
    } else if (this.#fieldsPerRecord === 0) {
      this.#fieldsPerRecord = fields.length;
    }
    return fields;
  }
}

const QUOTE_BYTES = new Uint8Array([QUOTE]);
const LF_BYTES = new Uint8Array([LF]);

function joinChunks(chunks: readonly Uint8Array[]): string {
  if (chunks.length === 1) return utf8String(chunks[0]!);
  let n = 0;
  for (const c of chunks) n += c.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return utf8String(out);
}

/** Index of the first byte in buf[from, to) that does not start a Go space character. */
function skipSpace(buf: Uint8Array, from: number, to: number): number {
  let i = from;
  while (i < to) {
    const b = buf[i]!;
    if (b < 0x80) {
      if (!isGoSpace(b)) return i;
      i++;
      continue;
    }
    // Decode one multi-byte rune (the input is valid UTF-8).
    const width = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
    let code = b & (width === 2 ? 0x1f : width === 3 ? 0x0f : 0x07);
    for (let k = 1; k < width; k++) code = (code << 6) | (buf[i + k]! & 0x3f);
    if (!isGoSpace(code)) return i;
    i += width;
  }
  return i;
}

/**
 * Go `csv.Writer` (UseCRLF off): each record on a line ending `\n`, a field quoted when it is
 * `\.`, holds the delimiter, a quote, `\r` or `\n`, or starts with a Unicode space; quotes doubled.
 * @param comma - one ASCII character other than `"`, `\r`, `\n`.
 * @throws TypeError on an invalid delimiter (Go `errInvalidDelim`).
 */
export function writeGoCsv(records: readonly (readonly string[])[], comma = ","): string {
  const code = comma.charCodeAt(0);
  if (comma.length !== 1 || code >= 0x80 || code === QUOTE || code === CR || code === LF) {
    throw new TypeError(`csv: invalid field delimiter ${JSON.stringify(comma)}`);
  }
  const lines: string[] = [];
  for (const record of records) {
    lines.push(record.map((field) => csvField(field, comma)).join(comma));
  }
  return lines.length === 0 ? "" : lines.join("\n") + "\n";
}

/** One field as Go writes it; a lone surrogate is U+FFFD, as in the Go string it came from. */
function csvField(raw: string, comma: string): string {
  const field = wellFormed(raw);
  return needsQuotes(field, comma) ? `"${field.replaceAll('"', '""')}"` : field;
}

function needsQuotes(field: string, comma: string): boolean {
  if (field === "") return false;
  if (field === "\\.") return true;
  if (field.includes(comma) || field.includes('"') || field.includes("\r") || field.includes("\n")) return true;
  const first = field.codePointAt(0)!;
  return isGoSpace(first);
}
