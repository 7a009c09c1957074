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
export function rawExchange(
  port: number,
  parts: RawPart | RawPart[],
  options: { waitMs?: number; done?: (text: string) => boolean } = {},
): Promise<RawExchange> {
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

/** A client reading one answer slowly or not at all ({@link slowReader}). */
export interface SlowReader {
  /** The client's own port (to find the connection in {@link serverSideState}). */
  clientPort: number;
  /** Bytes received so far (head and body). */
  bytes(): number;
  /** Starts reading at full speed. */
  resume(): void;
  /** Resolves when the connection is closed (by either side, or by a reset), with the bytes received. */
  closed: Promise<number>;
}

/**
 * Sends `request` on a new connection to `127.0.0.1:port` and reads the answer slowly: after each
 * chunk received, reading stops for `pauseMs` (Infinity: it stops for good, until
 * {@link SlowReader.resume}). What the client does not read stays in the socket buffers, and the
 * server then has to hold the rest of its answer.
 */
export async function slowReader(port: number, request: string, pauseMs: number): Promise<SlowReader> {
  const socket = connect(port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  let received = 0;
  let fullSpeed = false;
  const closed = new Promise<number>((resolve) => socket.on("close", () => resolve(received)));
  socket.on("error", () => {});
  socket.on("data", (d) => {
    received += d.length;
    if (fullSpeed) return;
    socket.pause();
    if (Number.isFinite(pauseMs)) setTimeout(() => fullSpeed || socket.resume(), pauseMs);
  });
  socket.write(request);
  return {
    clientPort: socket.localPort!,
    bytes: () => received,
    resume() {
      fullSpeed = true;
      socket.resume();
    },
    closed,
  };
}

/** Linux TCP state names by their /proc/net/tcp code (include/net/tcp_states.h). */
const TCP_STATES: Record<string, string> = {
  "01": "ESTABLISHED",
  "02": "SYN_SENT",
  "03": "SYN_RECV",
  "04": "FIN_WAIT1",
  "05": "FIN_WAIT2",
  "06": "TIME_WAIT",
  "07": "CLOSE",
  "08": "CLOSE_WAIT",
  "09": "LAST_ACK",
  "0A": "LISTEN",
  "0B": "CLOSING",
};

/**
 * The state of the server's end of the loopback connection `serverPort` ↔ `clientPort`, read from
 * /proc/net/tcp and /proc/net/tcp6 (Linux), or undefined once the kernel has forgotten it. It shows
 * whether the server closed a connection whose client reads nothing (that client never sees the FIN,
 * which waits behind the unread bytes).
 */
export async function serverSideState(serverPort: number, clientPort: number): Promise<string | undefined> {
  const hex = (p: number) => p.toString(16).toUpperCase().padStart(4, "0");
  const local = `:${hex(serverPort)}`;
  const remote = `:${hex(clientPort)}`;
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const text = await Bun.file(file)
      .text()
      .catch(() => "");
    for (const line of text.split("\n").slice(1)) {
      const [, localAddr, remoteAddr, state] = line.trim().split(/\s+/);
      if (localAddr?.endsWith(local) && remoteAddr?.endsWith(remote)) return TCP_STATES[state!] ?? state;
    }
  }
  return undefined;
}
