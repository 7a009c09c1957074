/**
 * A raw HTTP/1.1 client on a TCP socket, for tests that send what `fetch` refuses to send
 * (duplicate headers, bare LF, pipelined requests, slow bytes) and read the bytes as written.
 */
import { connect } from "node:net";

/** What came back on one connection. */
export interface RawExchange {
  /** Everything received, decoded as latin1 (byte for byte). */
  text: string;
  /** The server closed the connection (false: the wait ended first). */
  closed: boolean;
  /** The status codes of the responses in `text`, in order. */
  statuses: number[];
}

/** One piece of what to send: bytes, or a pause in ms before the next piece. */
export type RawPart = string | Uint8Array | { pauseMs: number };

/**
 * Opens a connection to `127.0.0.1:port`, writes `parts` in order, and resolves once the server
 * closes the connection, `done(text)` holds, or `waitMs` passed (whichever is first).
 */
export function rawExchange(port: number, parts: RawPart | RawPart[], options: { waitMs?: number; done?: (text: string) => boolean } = {}): Promise<RawExchange> {
  const waitMs = options.waitMs ?? 5000;
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closed, statuses: [...text.matchAll(/HTTP\/1\.[01] (\d{3}) /g)].map((m) => Number(m[1])) });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on("data", (d) => {
      text += d.toString("latin1");
      if (options.done?.(text)) finish(false);
    });
    socket.on("close", () => finish(true));
    socket.on("error", () => {});
    void (async () => {
      for (const p of Array.isArray(parts) ? parts : [parts]) {
        if (settled || socket.destroyed) return;
        if (typeof p === "object" && "pauseMs" in p) await Bun.sleep(p.pauseMs);
        else socket.write(p);
      }
    })();
  });
}

/** The header block of the first response in `text`, lower-cased names → values. */
export function firstHeaders(text: string): Map<string, string> {
  const head = text.slice(0, text.indexOf("\r\n\r\n"));
  const out = new Map<string, string>();
  for (const line of head.split("\r\n").slice(1)) {
    const i = line.indexOf(":");
    out.set(line.slice(0, i).toLowerCase(), line.slice(i + 1).trim());
  }
  return out;
}

/** The body of the first response in `text` (after the blank line, up to any next status line). */
export function firstBody(text: string): string {
  const rest = text.slice(text.indexOf("\r\n\r\n") + 4);
  const next = rest.indexOf("HTTP/1.1 ");
  return next < 0 ? rest : rest.slice(0, next);
}
