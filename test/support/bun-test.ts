/**
 * Runs `bun test` as a child, streams its output through, and reads its pass/fail counts so the
 * suite runners can print one closing line that CI understands (`N passed, N failed`).
 */

/** Counts read from a `bun test` run. */
export interface BunTestResult {
  /** Exit code of `bun test`. */
  code: number;
  passed: number;
  failed: number;
  skipped: number;
}

/** The bun binary running this script (the pinned npm devDependency under `npm run`). */
export const BUN = process.execPath;

async function pump(stream: ReadableStream<Uint8Array>, sink: NodeJS.WriteStream, seen: string[]): Promise<void> {
  const decoder = new TextDecoder();
  let buf = "";
  for await (const chunk of stream) {
    const text = decoder.decode(chunk, { stream: true });
    sink.write(text);
    buf += text;
    const lines = buf.split("\n");
    buf = lines.pop() ?? "";
    seen.push(...lines);
  }
  if (buf) seen.push(buf);
}

/**
 * Runs `bun test <args>` with extra environment and returns its counts.
 * The counts come from bun's summary lines (` 12 pass`, ` 0 fail`, ` 1 skip`).
 */
export async function runBunTest(args: string[], env: Record<string, string> = {}): Promise<BunTestResult> {
  const proc = Bun.spawn([BUN, "test", ...args], {
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  const lines: string[] = [];
  await Promise.all([pump(proc.stdout, process.stdout, lines), pump(proc.stderr, process.stderr, lines)]);
  const code = await proc.exited;
  const count = (word: string) => {
    let n = 0;
    for (const line of lines) {
      const m = line.match(new RegExp(`^\\s*(\\d+) ${word}\\s*$`));
      if (m) n = Number(m[1]);
    }
    return n;
  };
  const result = { code, passed: count("pass"), failed: count("fail"), skipped: count("skip") };
  // A crash before the summary must not read as success.
  if (code !== 0 && result.failed === 0) result.failed = 1;
  return result;
}
