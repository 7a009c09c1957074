/**
 * The client side of the console's `POST /api/send` (./api.ts): what `tinyhost send` in local mode
 * calls to reach the running host.
 */
import type { SendAnswer } from "./api.ts";
import { TinyError } from "../core/errors.ts";

/** The console refused the request or could not be reached. code `CONSOLE_SEND`. */
export class ConsoleSendError extends TinyError<"CONSOLE_SEND"> {
  /** @param message what went wrong. @param status the HTTP status, 0 when the console was not reached. */
  constructor(
    message: string,
    readonly status = 0,
  ) {
    super("CONSOLE_SEND", message);
  }
}

/** Options of {@link sendToConsole}. */
export interface ConsoleSendOptions {
  /** Wait for the hop's result (default true); false returns once the host took the message. */
  wait?: boolean;
  /** Longest wait, ms (the console's default when absent). */
  timeoutMs?: number;
}

/**
 * Sends `data` to `node`'s `port` through the console at `url` (`http://127.0.0.1:<port>`).
 * @returns the console's answer (`sent`, `ok`, `empty`, `fail` or `timeout`).
 * @throws ConsoleSendError when the console cannot be reached or refuses the request (unknown node or port, bad input).
 */
export async function sendToConsole(url: string, node: string, port: string, data: unknown, o: ConsoleSendOptions = {}): Promise<SendAnswer> {
  let res: Response;
  try {
    res = await fetch(`${url.replace(/\/$/, "")}/api/send`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ node, port, data, wait: o.wait ?? true, ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}) }),
    });
  } catch (err) {
    throw new ConsoleSendError(`cannot reach the console at ${url}: ${(err as Error).message}`);
  }
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    throw new ConsoleSendError(`the console at ${url} answered HTTP ${res.status} without JSON`, res.status);
  }
  const answer = body as Partial<SendAnswer> & { error?: string };
  if (answer.result === undefined) throw new ConsoleSendError(answer.error ?? `HTTP ${res.status}`, res.status);
  return answer as SendAnswer;
}
