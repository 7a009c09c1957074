/**
 * `text_chunk` — "Text Chunk" (Go encoding-module `components/textchunk`): splits `request.text`
 * into overlapping pieces for embedding and emits `{context, chunks: [{index, text, start, end}],
 * count, truncated}` on `response`.
 *
 * Go's algorithm, on UTF-8 bytes as Go counts them: a chunk ends at `start + chunkSize` (0 = 1000)
 * or, before that, just after the last allowed boundary in the window (`paragraph`: `\n\n` or
 * `\r\n\r\n`, the default for any other value; `line`: `\n`; `sentence`: `. ! ?` followed by a
 * space or newline; `none`: exactly at the size) unless that boundary lies in the window's first
 * fifth. The next chunk starts `overlap` bytes (negative = 200) before the end, but always after the
 * previous start. A piece's text is trimmed of white space, an all-space piece is skipped;
 * `start`/`end` are byte offsets of the untrimmed piece. At most `maxChunks` (0 = 500), then
 * `truncated`. `overlap >= chunkSize` fails the hop (or goes to `error` with `enableErrorPort`).
 *
 * Deliberate difference (docs/compatibility.md "encoding-module"): a cut never splits a UTF-8
 * character — it moves back to the character's first byte (forward past it when the character
 * alone is wider than the chunk). Go cuts bytes blindly and so emits broken characters (U+FFFD on
 * the wire) at both ends of the pieces around the cut. ASCII text chunks exactly as in Go.
 */
import {
  contextField,
  defineComponent,
  fail,
  isRuneStart,
  mark,
  source,
  stringEnum,
  target,
  trimGoSpace,
  Type,
  utf8Bytes,
  utf8String,
  type Static,
} from "tinyhost";

const DEFAULT_CHUNK_SIZE = 1000;
const DEFAULT_OVERLAP = 200;
const DEFAULT_MAX_CHUNKS = 500;

const Settings = Type.Object(
  {
    chunkSize: Type.Integer({
      title: "Chunk Size",
      description:
        "Target size in characters. A chunk may come in under it when a boundary falls early, and may exceed it only when a single unbreakable run is longer.",
      default: DEFAULT_CHUNK_SIZE,
    }),
    overlap: Type.Optional(
      Type.Integer({
        title: "Overlap",
        description:
          "Characters repeated from the end of one chunk at the start of the next, so a sentence spanning a boundary is still retrievable. Must be smaller than the chunk size.",
        default: DEFAULT_OVERLAP,
      }),
    ),
    splitOn: Type.Optional(
      stringEnum(["paragraph", "line", "sentence", "none"], {
        title: "Split On",
        description:
          "Where a break is allowed. Prose splits best on paragraph; a log or CSV-ish file on line; 'none' cuts at exactly the chunk size and will cut mid-word.",
        default: "paragraph",
        enumTitles: ["Paragraph", "Line", "Sentence", "Anywhere"],
      }),
    ),
    maxChunks: Type.Optional(
      Type.Integer({
        title: "Max Chunks",
        description: "Ceiling on pieces from one document, so an unexpectedly large file cannot flood the embedder. Reaching it sets truncated.",
        default: DEFAULT_MAX_CHUNKS,
      }),
    ),
    enableErrorPort: Type.Optional(Type.Boolean({ title: "Enable Error Port", description: "Output errors to the error port instead of failing the run." })),
  },
  { $id: "Settings" },
);
type Settings = Required<Static<typeof Settings>>;

const Request = Type.Object(
  {
    context: Type.Optional(contextField("Passthrough — carry the document's id or source here so each chunk can be traced back to it.")),
    text: Type.String({ title: "Text", description: "The document to split.", format: "textarea" }),
  },
  { $id: "Request" },
);

const Chunk = Type.Object(
  {
    index: Type.Optional(Type.Integer({ title: "Index" })),
    text: Type.Optional(Type.String({ title: "Text" })),
    start: Type.Optional(Type.Integer({ title: "Start", description: "Byte offset in the original text." })),
    end: Type.Optional(Type.Integer({ title: "End" })),
  },
  { $id: "Chunk" },
);

const Response = Type.Object(
  {
    context: Type.Optional(mark(Type.Unknown({ $id: "Context" }), { configurable: true, title: "Context" })),
    chunks: Type.Optional(
      Type.Union([Type.Array(Chunk), Type.Null()], { title: "Chunks", description: "Wire through array_split so each chunk reaches embed_text on its own." }),
    ),
    count: Type.Optional(Type.Integer({ title: "Count" })),
    truncated: Type.Optional(
      Type.Boolean({
        title: "Truncated",
        description:
          "True when the document produced more pieces than maxChunks and the rest were dropped. Check it — a silently half-indexed document answers questions wrongly rather than not at all.",
      }),
    ),
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
const ZERO_SETTINGS: Settings = { chunkSize: 0, overlap: 0, splitOn: "", maxChunks: 0, enableErrorPort: false };

/** One piece: its trimmed text and the byte offsets `[start, end)` of the untrimmed piece. */
export interface TextChunk {
  index: number;
  text: string;
  start: number;
  end: number;
}

/** Byte sequences a break may follow, per `splitOn` (Go's order, which decides ties). */
const SEPARATORS: Record<string, readonly Uint8Array[]> = {
  paragraph: ["\n\n", "\r\n\r\n"].map((s) => utf8Bytes(s)),
  line: ["\n"].map((s) => utf8Bytes(s)),
  sentence: [". ", "! ", "? ", ".\n", "!\n", "?\n"].map((s) => utf8Bytes(s)),
};

/**
 * Splits `text` as text_chunk does.
 * @param size - chunk size in bytes (> 0). @param overlap - bytes repeated (0 ≤ overlap < size).
 * @returns the chunks and whether `maxChunks` cut the document short.
 */
export function splitText(text: string, size: number, overlap: number, splitOn: string, maxChunks: number): { chunks: TextChunk[]; truncated: boolean } {
  const bytes = utf8Bytes(text);
  const chunks: TextChunk[] = [];
  let start = 0;
  while (start < bytes.length) {
    if (chunks.length >= maxChunks) return { chunks, truncated: true };
    let end = start + size;
    if (end >= bytes.length) end = bytes.length;
    else end = runeCut(bytes, start, boundaryBefore(bytes, start, end, splitOn));
    const piece = trimGoSpace(utf8String(bytes.subarray(start, end)));
    if (piece !== "") chunks.push({ index: chunks.length, text: piece, start, end });
    if (end >= bytes.length) break;
    // Step back by the overlap, but never behind this chunk's start (an early boundary could
    // otherwise loop forever).
    let next = runeStartAtOrBefore(bytes, end - overlap);
    if (next <= start) next = end;
    start = next;
  }
  return { chunks, truncated: false };
}

/** Go's `boundaryBefore`: the end just after the last separator in `[start, limit)`, or `limit`. */
function boundaryBefore(bytes: Uint8Array, start: number, limit: number, splitOn: string): number {
  if (splitOn === "none") return limit;
  const seps = SEPARATORS[splitOn] ?? SEPARATORS.paragraph!;
  let best = -1;
  for (const sep of seps) {
    const idx = lastIndexOf(bytes, sep, start, limit);
    // Go compares the raw index with the best END so far; kept, since it decides which separator wins.
    if (idx > best) best = idx + sep.length;
  }
  // A boundary in the first fifth would leave a sliver; cut at the limit instead.
  if (best <= Math.trunc((limit - start) / 5)) return limit;
  return start + best;
}

/** Index of the last `sep` inside `bytes[from, to)`, relative to `from`; -1 when absent. */
function lastIndexOf(bytes: Uint8Array, sep: Uint8Array, from: number, to: number): number {
  outer: for (let i = to - sep.length; i >= from; i--) {
    for (let k = 0; k < sep.length; k++) if (bytes[i + k] !== sep[k]) continue outer;
    return i - from;
  }
  return -1;
}

/** `cut` moved back to a character's first byte; forward past the character when that reaches `start`. */
function runeCut(bytes: Uint8Array, start: number, cut: number): number {
  const back = runeStartAtOrBefore(bytes, cut);
  if (back > start) return back;
  let forward = cut;
  while (forward < bytes.length && !isRuneStart(bytes[forward]!)) forward++;
  return forward;
}

function runeStartAtOrBefore(bytes: Uint8Array, at: number): number {
  let i = at;
  while (i > 0 && i < bytes.length && !isRuneStart(bytes[i]!)) i--;
  return i;
}

/** `{context}` when there is one (Go `json:"context,omitempty"`), then `rest`. */
function withContext<T extends object>(context: unknown, rest: T): T & { context?: unknown } {
  return context === null || context === undefined ? rest : { context, ...rest };
}

export default defineComponent({
  info: {
    name: "text_chunk",
    description: "Text Chunk",
    info:
      "Splits a document into overlapping pieces for embedding — the step between having a document and " +
      "having something vector_upsert can store. Breaks on a paragraph, line or sentence boundary where it can " +
      "so a piece is a whole thought, and carries each piece's offsets so a citation points back into the " +
      "original. " +
      "Wire array_split after it to send one chunk at a time to embed_text, then vector_upsert. " +
      "Overlap exists so a sentence that straddles a boundary is still findable; without it, retrieval misses " +
      "exactly the passages that span two chunks. " +
      "Check truncated on the way out: a document that produced more pieces than maxChunks is indexed in part, " +
      "and a half-indexed document answers questions wrongly rather than not at all.",
    tags: ["text", "rag", "embedding"],
  },
  state: () => ({ settings: { ...ZERO_SETTINGS } }),
  ports: (self) => [
    target("request", Request, { label: "Request", position: "left", default: { text: "" } }),
    source("response", Response, { label: "Response", position: "right", default: { chunks: null, count: 0, truncated: false } }),
    target("_settings", Settings, { label: "Settings", default: self.settings }),
    ...(self.settings.enableErrorPort ? [source("error", ErrorOut, { label: "Error", position: "bottom", default: { error: "" } })] : []),
  ],
  onSettings(ctx, settings) {
    ctx.self.settings = { ...ZERO_SETTINGS, ...settings } as Settings;
  },
  handle(ctx, output, _port, data) {
    const s = ctx.self.settings;
    const context = data.context ?? null;
    const size = s.chunkSize > 0 ? s.chunkSize : DEFAULT_CHUNK_SIZE;
    const overlap = s.overlap < 0 ? DEFAULT_OVERLAP : s.overlap;
    const maxChunks = s.maxChunks > 0 ? s.maxChunks : DEFAULT_MAX_CHUNKS;
    if (overlap >= size) {
      const error = new Error(
        `overlap (${overlap}) must be smaller than chunkSize (${size}) — an overlap at least as large as a chunk never advances through the document`,
      );
      if (!s.enableErrorPort) return fail(error);
      return output("error", withContext(context, { error: error.message }));
    }
    const { chunks, truncated } = splitText(data.text, size, overlap, s.splitOn, maxChunks);
    return output("response", withContext(context, { chunks, count: chunks.length, truncated }));
  },
});
