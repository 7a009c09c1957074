// A body over maxBodySize (src/sdk/http/listener.ts tooLarge): the rest of the body is read and dropped,
// so a client still sending it is never reset (a reverse proxy turned that reset into 502); then the
// whole 413 and a clean close — within DRAIN_MAX_BYTES / DRAIN_MAX_MS, past which the sender is cut off.
import { afterEach, describe, expect, test } from "bun:test";
import { connect, type Socket } from "node:net";
import { ok } from "../../../src/core/result.ts";
import { DRAIN_MAX_BYTES, HttpListener } from "../../../src/sdk/http/listener.ts";
import { until } from "../../support/until.ts";

const LIMIT = 1024 * 1024;
const TEXT = `request body exceeds the ${LIMIT} byte limit (maxBodySize)`;
const open: HttpListener[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(open.splice(0).map((l) => l.close(false)));
});

function listener(): HttpListener {
  const l = new HttpListener({
    port: 0,
    readTimeout: 60,
    writeTimeout: 10,
    maxBodyBytes: () => LIMIT,
    context: () => null,
    onRequest: () => Promise.resolve(ok({ statusCode: 200, body: "flow ran" })),
  });
  open.push(l);
  return l;
}

/** A raw client: what it received, whether the server ended or reset the connection, and a paced writer. */
async function client(port: number) {
  const sock = connect(port, "127.0.0.1");
  sockets.push(sock);
  const state = { text: "", ended: false, error: undefined as Error | undefined };
  sock.on("data", (d: Buffer) => (state.text += d.toString("latin1")));
  sock.on("end", () => (state.ended = true));
  sock.on("error", (e) => (state.error = e));
  await new Promise<void>((resolve, reject) => sock.once("connect", resolve).once("error", reject));
  /** Writes `bytes` of body in 64 KiB pieces (chunk-framed when `chunked`), pausing `pauseMs` between pieces. */
  const writeBody = async (bytes: number, chunked: boolean, pauseMs = 5) => {
    const piece = Buffer.alloc(64 * 1024, 97);
    for (let left = bytes; left > 0; ) {
      if (state.error || sock.destroyed) throw new Error(`connection lost with ${left} bytes unsent: ${state.error?.message ?? "destroyed"}`);
      const n = Math.min(piece.length, left);
      const data = piece.subarray(0, n);
      const flushed = chunked ? sock.write(`${n.toString(16)}\r\n`) && sock.write(data) && sock.write("\r\n") : sock.write(data);
      if (!flushed) await new Promise((r) => sock.once("drain", r).once("close", r));
      left -= n;
      await Bun.sleep(pauseMs);
    }
  };
  return { sock, state, writeBody };
}

describe("a body over maxBodySize", () => {
  for (const chunked of [false, true]) {
    test(`${chunked ? "chunked" : "Content-Length"} 5 MB, sent steadily: every byte is accepted (no reset), then the whole 413 and a clean close`, async () => {
      const l = listener();
      const total = 5_000_000;
      const c = await client(l.port);
      c.sock.write(`POST /upload HTTP/1.1\r\nHost: x\r\n${chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${total}`}\r\n\r\n`);
      await c.writeBody(total, chunked, 2); // throws if the server reset the connection while it was still being written
      if (chunked) c.sock.write("0\r\n\r\n");
      await until("the server closes the connection", () => c.state.ended || c.state.error, 15_000);
      expect(c.state.error).toBeUndefined(); // a FIN after the answer, not a reset
      expect(c.state.text.startsWith("HTTP/1.1 413 ")).toBe(true);
      expect(c.state.text.toLowerCase()).toContain("connection: close");
      expect(c.state.text.toLowerCase()).toContain(`content-length: ${TEXT.length}\r\n`);
      expect(c.state.text.endsWith(`\r\n\r\n${TEXT}`)).toBe(true); // the answer is whole
      expect(c.state.text).not.toContain("flow ran");
    });
  }

  test(`a declared Content-Length beyond ${DRAIN_MAX_BYTES} bytes is not read: 413 with Content-Length, connection closed at once`, async () => {
    const l = listener();
    const c = await client(l.port);
    c.sock.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${DRAIN_MAX_BYTES + LIMIT}\r\n\r\n`);
    await until("the server closes the connection", () => c.state.ended || c.state.error, 15_000);
    expect(c.state.text.startsWith("HTTP/1.1 413 ")).toBe(true);
    expect(c.state.text.toLowerCase()).toContain(`content-length: ${TEXT.length}\r\n`);
    expect(c.state.text.endsWith(TEXT)).toBe(true);
  });

  test("a sender trickling a refused body forever is cut off (DRAIN_MAX_MS)", async () => {
    const l = listener();
    const c = await client(l.port);
    c.sock.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${10 * 1024 * 1024}\r\n\r\n`);
    await c.writeBody(LIMIT + 1, false, 0);
    // 1 KiB every 100 ms: never idle, never done — only the drain's time bound ends it.
    const trickle = (async () => {
      while (!c.state.ended && !c.state.error && !c.sock.destroyed) {
        c.sock.write(Buffer.alloc(1024, 98));
        await Bun.sleep(100);
      }
    })();
    await until("the server cuts the trickling sender off", () => c.state.ended || c.state.error || c.sock.destroyed, 20_000);
    await trickle;
    expect(c.state.text).not.toContain("flow ran");
  });
});
