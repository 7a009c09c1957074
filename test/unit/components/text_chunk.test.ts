/**
 * text_chunk, from the Go component's own tests (encoding-module
 * components/textchunk/textchunk_test.go, ported case by case) plus the eval flow's input and the deliberate
 * difference on multi-byte characters (docs/compatibility.md "encoding-module").
 */
import { describe, expect, test } from "bun:test";
import { testComponent } from "tinyhost";
import textChunk, { splitText } from "../../../components/text_chunk.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

type Chunk = { index: number; text: string; start: number; end: number };
type Out = { context?: unknown; chunks: Chunk[]; count: number; truncated: boolean };
const unb64 = (s: string) => JSON.parse(Buffer.from(s, "base64").toString("utf8"));

async function run(text: string, settings: Record<string, unknown> = {}, context?: unknown) {
  const h = await testComponent(textChunk, { settings: { chunkSize: 0, ...settings } });
  const result = await h.send("request", context === undefined ? { text } : { context, text });
  return { result, emitted: h.emitted };
}

async function chunk(text: string, settings: Record<string, unknown> = {}): Promise<Out> {
  const { result, emitted } = await run(text, settings);
  expect(result.kind).not.toBe("fail");
  expect(emitted.map((e) => e.port)).toEqual(["response"]);
  return emitted[0]!.data as Out;
}

const paragraphs = (n: number, size: number) => Array.from({ length: n }, () => "x".repeat(size)).join("\n\n");

describe("text_chunk (Go textchunk_test.go)", () => {
  test("splits a long document", async () => {
    const out = await chunk(paragraphs(10, 300), { chunkSize: 500, overlap: 50 });
    expect(out.count).toBeGreaterThanOrEqual(2);
    expect(out.count).toBe(out.chunks.length);
    expect(out.truncated).toBe(false);
  });

  test("a short document is one chunk, unchanged", async () => {
    expect((await chunk("one short paragraph.", { chunkSize: 1000 })).chunks).toEqual([{ index: 0, text: "one short paragraph.", start: 0, end: 20 }]);
  });

  test("empty text is no chunks, as an empty list", async () => {
    expect(await chunk("")).toEqual({ chunks: [], count: 0, truncated: false });
  });

  test("offsets locate each chunk in the original", async () => {
    const text = paragraphs(8, 200);
    const out = await chunk(text, { chunkSize: 400, overlap: 40 });
    for (const c of out.chunks) {
      expect(c.start).toBeGreaterThanOrEqual(0);
      expect(c.end).toBeLessThanOrEqual(text.length);
      expect(c.start).toBeLessThan(c.end);
      expect(text.slice(c.start, c.end)).toContain(c.text);
    }
  });

  test("indexes are sequential", async () => {
    const out = await chunk(paragraphs(12, 250), { chunkSize: 500, overlap: 50 });
    expect(out.chunks.map((c) => c.index)).toEqual(out.chunks.map((_, i) => i));
  });

  test("the overlap repeats the end of the previous chunk", async () => {
    const out = await chunk("abcdefghij".repeat(100), { chunkSize: 200, overlap: 50, splitOn: "none" });
    expect(out.count).toBeGreaterThanOrEqual(2);
    expect(out.chunks[1]!.start).toBe(out.chunks[0]!.end - 50);
  });

  test("breaks on a paragraph boundary", async () => {
    const out = await chunk("x".repeat(180) + "\n\n" + "y".repeat(180), { chunkSize: 200, overlap: 0, splitOn: "paragraph" });
    expect(out.count).toBe(2);
    expect(out.chunks[0]!.text).not.toContain("y");
    expect(out.chunks[1]!.text).not.toContain("x");
  });

  test("breaks on a line boundary", async () => {
    const out = await chunk("x".repeat(180) + "\n" + "y".repeat(180), { chunkSize: 200, overlap: 0, splitOn: "line" });
    expect(out.count).toBe(2);
    expect(out.chunks[0]!.text).not.toContain("y");
  });

  test("breaks on a sentence boundary", async () => {
    const out = await chunk("x".repeat(178) + ". " + "y".repeat(180), { chunkSize: 200, overlap: 0, splitOn: "sentence" });
    expect(out.count).toBe(2);
    expect(out.chunks[0]!.text).not.toContain("y");
  });

  test("an unbreakable run still terminates, hard-cut at the size", async () => {
    const out = await chunk("x".repeat(5000), { chunkSize: 500, overlap: 100, splitOn: "paragraph" });
    expect(out.count).toBeGreaterThanOrEqual(2);
    for (const c of out.chunks) expect(c.text.length).toBeLessThanOrEqual(500);
  });

  test("many short paragraphs are packed into chunks", async () => {
    expect((await chunk(paragraphs(40, 20), { chunkSize: 500, overlap: 0 })).count).toBeLessThanOrEqual(10);
  });

  test("maxChunks truncates and reports it", async () => {
    const out = await chunk("x".repeat(10000), { chunkSize: 100, overlap: 0, splitOn: "none", maxChunks: 5 });
    expect([out.count, out.truncated]).toEqual([5, true]);
  });

  test("an overlap at least the chunk size is refused with Go's text", async () => {
    const { result, emitted } = await run("anything", { chunkSize: 100, overlap: 100 });
    expect(emitted).toEqual([]);
    expect(result.kind === "fail" && result.error.message).toBe(
      "overlap (100) must be smaller than chunkSize (100) — an overlap at least as large as a chunk never advances through the document",
    );
  });

  test("zero settings mean the defaults (1000 bytes, no overlap given → 0, 500 chunks)", async () => {
    const out = await chunk(paragraphs(6, 400), { chunkSize: 0, overlap: 0, maxChunks: 0 });
    expect(out.count).toBeGreaterThan(0);
    for (const c of out.chunks) expect(c.text.length).toBeGreaterThanOrEqual(100);
    // A negative overlap is the default 200.
    const stepped = await chunk("abcdefghij".repeat(300), { chunkSize: 1000, overlap: -1, splitOn: "none" });
    expect(stepped.chunks[1]!.start).toBe(800);
  });

  test("the context is carried", async () => {
    const { emitted } = await run("some text", {}, { docId: "doc-1" });
    expect((emitted[0]!.data as Out).context).toEqual({ docId: "doc-1" });
  });

  test("with the error port a refusal is emitted there", async () => {
    const { result, emitted } = await run("anything", { chunkSize: 100, overlap: 200, enableErrorPort: true });
    expect(result.kind).not.toBe("fail");
    expect(emitted.map((e) => e.port)).toEqual(["error"]);
    expect((emitted[0]!.data as { error: string }).error).toContain("overlap (200)");
  });
});

describe("text_chunk: Go's algorithm in detail", () => {
  test("the shared eval flow's document: three chunks, the second keeps the overlap", async () => {
    const text =
      "Alpha paragraph about pods.\n\nBeta paragraph about nodes and how they behave under load.\n\nGamma paragraph, the third one, describing what happens next.\n\nDelta paragraph closing the document.";
    const out = await chunk(text, { chunkSize: 100, overlap: 20, splitOn: "paragraph", maxChunks: 50 });
    expect(out.chunks).toEqual([
      { index: 0, text: "Alpha paragraph about pods.\n\nBeta paragraph about nodes and how they behave under load.", start: 0, end: 89 },
      { index: 1, text: "behave under load.\n\nGamma paragraph, the third one, describing what happens next.", start: 69, end: 152 },
      { index: 2, text: "what happens next.\n\nDelta paragraph closing the document.", start: 132, end: 189 },
    ]);
  });

  test("a boundary in the window's first fifth is ignored", () => {
    const text = "ab\n\n" + "x".repeat(40);
    expect(splitText(text, 20, 0, "paragraph", 10).chunks[0]).toEqual({ index: 0, text: "ab\n\n" + "x".repeat(16), start: 0, end: 20 });
  });

  test("an all-space piece is skipped and does not take an index", () => {
    const { chunks } = splitText("a" + " ".repeat(30) + "b", 10, 0, "none", 10);
    expect(chunks.map((c) => [c.index, c.text, c.start])).toEqual([
      [0, "a", 0],
      [1, "b", 30],
    ]);
  });

  test("offsets are UTF-8 byte offsets, as Go's", () => {
    const { chunks } = splitText("é".repeat(10), 1000, 0, "none", 10);
    expect(chunks).toEqual([{ index: 0, text: "é".repeat(10), start: 0, end: 20 }]);
  });
});

describe("text_chunk: deliberate difference — a cut never splits a character", () => {
  test("a cut inside a two-byte character moves back to its start", () => {
    const { chunks } = splitText("é".repeat(10), 5, 0, "none", 10); // Go cuts at byte 5, inside the third é
    expect(chunks.map((c) => [c.text, c.start, c.end])).toEqual([
      ["éé", 0, 4],
      ["éé", 4, 8],
      ["éé", 8, 12],
      ["éé", 12, 16],
      ["éé", 16, 20],
    ]);
  });

  test("a character wider than the chunk is kept whole", () => {
    const { chunks } = splitText("🎉🎉", 2, 0, "none", 10);
    expect(chunks.map((c) => c.text)).toEqual(["🎉", "🎉"]);
  });

  test("the overlap start moves back to a character start too, and no text is broken", () => {
    const { chunks } = splitText("ключ значение ".repeat(20), 50, 7, "none", 100);
    for (const c of chunks) expect(c.text).not.toContain("\ufffd");
    for (let i = 1; i < chunks.length; i++) expect(chunks[i]!.start).toBeLessThan(chunks[i - 1]!.end);
  });
});

describe("text_chunk ports", () => {
  test("request, response, _settings with Go's zero settings; error only with enableErrorPort", async () => {
    const h = await testComponent(textChunk);
    const ports = h.status().ports!;
    expect(ports.map((p) => p.name)).toEqual(["_settings", "request", "response"]);
    expect(unb64(ports.find((p) => p.name === "_settings")!.configuration)).toEqual({
      chunkSize: 0,
      overlap: 0,
      splitOn: "",
      maxChunks: 0,
      enableErrorPort: false,
    });
    expect(unb64(ports.find((p) => p.name === "response")!.configuration)).toEqual({ chunks: null, count: 0, truncated: false });
    const withError = await testComponent(textChunk, { settings: { chunkSize: 10, enableErrorPort: true } });
    expect(withError.status().ports!.map((p) => p.name)).toContain("error");
  });
});
