/**
 * One external command of the image build (buildah, mmdebstrap, ctr), its output streamed to the
 * build's log (stderr for `npm run image`, a file in the tests) and its last lines kept for the
 * error when it fails.
 */
import { appendFileSync } from "node:fs";

/** Where command output goes: this process's stderr, or appended to a file. */
export type LogSink = "stderr" | { file: string };

/** Writes one line (a newline is added) to `sink`. */
export function logLine(sink: LogSink, line: string): void {
  if (sink === "stderr") process.stderr.write(`${line}\n`);
  else appendFileSync(sink.file, `${line}\n`);
}

/** A command that exited non-zero; the message names it and quotes its last output lines. */
export class CommandError extends Error {
  /** @param command - argv. @param code - exit code. @param tail - last lines of its output. */
  constructor(
    readonly command: readonly string[],
    readonly code: number,
    readonly tail: string,
  ) {
    super(`${command.slice(0, 3).join(" ")} … exited with code ${code}${tail ? `:\n${tail}` : ""}`);
    this.name = "CommandError";
  }
}

/** Options of {@link runCommand}. */
export interface RunOptions {
  /** Where stdout and stderr go (default stderr). `quiet` drops them (still kept for the error). */
  log?: LogSink | "quiet";
  /** Extra environment. */
  env?: Record<string, string>;
  /** Working directory. */
  cwd?: string;
  /** Keep stdout and return it instead of logging it (for commands whose output is data). */
  capture?: boolean;
}

const TAIL_BYTES = 4096;

async function drain(stream: ReadableStream<Uint8Array>, onChunk: (text: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  for await (const chunk of stream) onChunk(decoder.decode(chunk, { stream: true }));
}

/**
 * Runs `command` to completion.
 * @returns its stdout when `capture` is set, else "".
 * @throws CommandError when it exits non-zero (message: the command and its last ~4 KiB of
 *   output); Error when it cannot be started.
 */
export async function runCommand(command: readonly string[], options: RunOptions = {}): Promise<string> {
  const sink = options.log ?? "stderr";
  let tail = "";
  let captured = "";
  const keep = (text: string) => {
    tail = (tail + text).slice(-TAIL_BYTES);
  };
  const emit = (text: string) => {
    keep(text);
    if (sink === "quiet") return;
    if (sink === "stderr") process.stderr.write(text);
    else appendFileSync(sink.file, text);
  };
  const proc = Bun.spawn([...command], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  await Promise.all([drain(proc.stdout, options.capture ? (t) => (captured += t) : emit), drain(proc.stderr, emit)]);
  const code = await proc.exited;
  if (code !== 0) throw new CommandError(command, code, tail.trimEnd());
  return captured;
}
