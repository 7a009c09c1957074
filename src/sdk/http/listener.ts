/**
 * The HTTP listener of http_server: Hono on `Bun.serve`, one catch-all route, every request handed
 * to the flow and answered from its Result (components.md §2.1 "Request → response flow"). Hono
 * stays although calling the handler straight from Bun.serve costs a little less CPU (bench/RESULTS.md
 * "Hono in http_server"): its error answers are what a hand-written copy would re-implement. HEAD is
 * answered here, not by Hono: Hono's body-less copy of the GET answer made Bun write
 * `content-length: 0` and no `Date` ({@link headAnswer}). A flow that has answered by the time it
 * returns is answered synchronously, with a Response rather than a promise (src/core/settled.ts).
 * RFC 9110/9112 behaviour, and what Bun's parser decides before this code runs: docs/security.md
 * "HTTP input", test/unit/sdk/http-server-rfc.test.ts.
 *
 * Timeouts: Bun closes a connection idle for `idleTimeout` seconds (default 10, max 255), and a
 * request waiting for its flow counts as idle, so `idleTimeout` is set from the Start config
 * (`max(readTimeout, writeTimeout) + 1`, capped at 255; 0 when both are 0). A request whose flow
 * takes longer than `writeTimeout` (checked every 100 ms) is cancelled and answered 504; when that exceeds Bun's cap the
 * request's own idle timer is switched off (`server.timeout(req, 0)`). A client that disconnects
 * has its flow cancelled at the next sweep (≤ 100 ms). The same deadline bounds the write of a
 * large answer, as Go's `WriteTimeout` does ({@link boundWrite}): a client that stops reading
 * cannot hold the connection and the unsent answer past it.
 */
import { Hono } from "hono";
import { startHttpServerSpan, type HttpServerSpan } from "../../telemetry/http.ts";
import { fail, type Result } from "../../core/result.ts";
import { TinyError } from "../../core/errors.ts";
import { LazyAbort } from "../../core/lazy-abort.ts";
import { fulfilledValue, NOT_FULFILLED } from "../../core/settled.ts";
import { answerFor, FlowTimeoutError, isLargeAnswer, textResponse } from "./server-response.ts";
import { registerListener, unregisterListener, type Drainable } from "../../manager/open-listeners.ts";
import { buildServerRequest, hostProblem, scanHeaders, type HeaderScan, type ServerRequest } from "./server-request.ts";
import { bounded, startTimer, type Timer } from "../../core/timer.ts";

/** Bun's maximum `idleTimeout`, seconds. */
export const BUN_MAX_IDLE_TIMEOUT_S = 255;

/**
 * Bounds the write of a large answer ({@link isLargeAnswer}) by the request's write deadline (ms
 * epoch; Infinity = none), as Go's `WriteTimeout` bounds the write and not only the handler: when
 * the deadline passes, the request's idle timeout drops to Bun's minimum (1 s), so Bun closes the
 * connection — freeing the unsent rest of the answer — about a second later, whether the client
 * stopped reading or reads too slowly. Bun ignores `server.timeout` for a request already answered,
 * so an answer that was written in time is untouched, and so is the next request on its connection.
 * A string body is kept (not streamed): Bun's idle timer does fire while a string body waits on a
 * client that does not read, and a stream doubled the time to serve 1 MiB.
 */
function boundWrite(response: Response, req: Request, server: ReturnType<typeof Bun.serve>, deadline: number): Response {
  if (deadline !== Infinity && isLargeAnswer(response)) startTimer(deadline - Date.now(), () => server.timeout(req, 1), { unref: true });
  return response;
}

/** Listener options. Timeouts in seconds (≤ 0 = none). */
export interface ListenerOptions {
  /** TCP port; 0 = let the OS pick. */
  port: number;
  readTimeout: number;
  writeTimeout: number;
  /** PEM certificate and key → HTTPS. */
  tls?: { cert: string; key: string };
  /** Body cap in bytes, read per request (settings may change while running). */
  maxBodyBytes: () => number;
  /** Passthrough context of the Start config, read per request. */
  context: () => unknown;
  /**
   * Runs the flow for one request; `cancel` aborts on client disconnect, write timeout or close
   * (a {@link LazyAbort}: its `signal` is built only when read — hand it to the emitter as is).
   */
  onRequest: (request: ServerRequest, cancel: LazyAbort) => Promise<Result>;
  /**
   * The node lifetime this listener belongs to (http_server passes `ctx.nodeSignal`): on shutdown
   * the host drains the listeners of its nodes before it stops them, so in-flight requests finish
   * (src/manager/open-listeners.ts). Absent: only {@link HttpListener.close} closes it.
   */
  owner?: AbortSignal;
}

/** The listener could not bind (port in use, bad TLS material…). code `"HTTP_LISTEN"`. */
export class ListenError extends TinyError {
  constructor(port: number, cause: unknown) {
    super("HTTP_LISTEN", `http_server: cannot listen on :${port}: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

/** `idleTimeout` for the Start timeouts (see module comment). */
export function idleTimeoutFor(readTimeout: number, writeTimeout: number): number {
  const longest = Math.max(readTimeout, writeTimeout, 0);
  return longest === 0 ? 0 : Math.min(BUN_MAX_IDLE_TIMEOUT_S, longest + 1);
}

/** Abort reason of flows cancelled because the server stops (answered 503). */
const STOPPED = new Error("http_server stopped");

/** Abort reason of flows whose client went away. */
const DISCONNECTED = new Error("client disconnected");

/**
 * One request waiting for its flow. It settles once: with the flow's answer, or at the moment it is
 * aborted (client disconnect, write timeout, close) even if the flow ignores its signal.
 */
class InFlight {
  #settled = false;
  constructor(
    readonly inFlight: Set<InFlight>,
    /** Cancels the flow: the cancellation its hops see. */
    readonly flow: LazyAbort,
    /**
     * The request: Bun aborts its `signal` when the client disconnects. Read only by the sweep,
     * since Bun builds that signal on first access (a late read still shows the abort).
     */
    readonly request: Request,
    /** When the write timeout expires, ms epoch (Infinity = none). */
    readonly deadline: number,
    readonly span: HttpServerSpan,
    readonly resolve: (response: Response) => void,
  ) {
    inFlight.add(this);
  }

  /** The flow answered: write its Result as the HTTP answer. */
  finish(result: Result): void {
    if (this.#settled) return;
    this.#answer(answerFor(result));
  }

  /** Cancels the flow and answers now: 504 for the write timeout, 503 when the server stops. */
  abort(reason: Error): void {
    if (this.#settled) return;
    this.flow.abort(reason);
    this.#answer(
      reason instanceof FlowTimeoutError ? textResponse(504, reason.message) : reason === STOPPED ? textResponse(503, reason.message) : answerFor(fail(reason)),
    );
  }

  #answer(response: Response): void {
    this.#settled = true;
    this.inFlight.delete(this);
    this.span.end(response.status);
    this.resolve(response);
  }
}

/**
 * Granularity of the sweep, ms: it enforces `writeTimeout` (whole seconds) and notices clients
 * that went away. Polling `req.signal.aborted` instead of adding an abort listener per request:
 * Bun aborts the signal either way, and a listener costs a minimal handler much of its throughput
 * (bench/RESULTS.md "Polling"); a disconnect is then seen within this interval.
 */
const SWEEP_MS = 100;

/**
 * Most bytes of a refused body read and dropped after its 413 (docs/operations.md "Body limit"):
 * past this a sender is cut off — a proxy forwarding a 5 MB upload must not get a reset instead of
 * the 413, but nobody gets to stream an unbounded body into the void.
 */
export const DRAIN_MAX_BYTES = 16 * 1024 * 1024;

/** Longest a refused body is read and dropped, ms: bounds a slow (slow-loris) sender's hold on the connection. */
export const DRAIN_MAX_MS = 5_000;

/** What the drain needs of a request body's reader (Bun's and the DOM's reader types differ). */
type BodyReader = Pick<ReadableStreamDefaultReader<Uint8Array>, "read" | "cancel">;

/** The 413 text (the limit in bytes). */
function tooLargeText(limit: number): string {
  return `request body exceeds the ${limit} byte limit (maxBodySize)`;
}

/**
 * 413 for a body over `limit`, with `Connection: close`. Closing a connection whose peer is still
 * sending makes the kernel answer with a reset, and the reset can destroy the answer before the
 * peer reads it (a reverse proxy then answers 502). So when the rest of the body is within
 * {@link DRAIN_MAX_BYTES} (`rest`: the bytes a `Content-Length` still announces; undefined =
 * unknown, chunked) it is first read and dropped — never buffered — until it ends, the client
 * aborts, or {@link DRAIN_MAX_BYTES} / {@link DRAIN_MAX_MS} pass, and only then is the 413 written
 * and the connection closed (nginx's lingering close; Go's net/http drains up to 256 KiB). The
 * answer is not sent earlier: a Go reverse proxy (Traefik) stops reading its client's body once it
 * forwards an answer's head, which cut a streamed early 413 short (docs/operations.md §11). Past
 * the bound, or without a body to read, the connection closes at once.
 */
async function tooLarge(limit: number, reader?: BodyReader, rest?: number): Promise<Response> {
  if (reader !== undefined && (rest === undefined || rest <= DRAIN_MAX_BYTES)) await drain(reader);
  else void reader?.cancel().catch(() => {});
  return textResponse(413, tooLargeText(limit), true);
}

/** Reads and drops the rest of a body until it ends, fails (client abort) or passes {@link DRAIN_MAX_BYTES} / {@link DRAIN_MAX_MS}. */
async function drain(reader: BodyReader): Promise<void> {
  const timer = startTimer(DRAIN_MAX_MS, () => void reader.cancel().catch(() => {}), { unref: true });
  try {
    let dropped = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      dropped += value.byteLength;
      if (dropped > DRAIN_MAX_BYTES) return void reader.cancel().catch(() => {});
    }
  } catch {
    // the client aborted or the timer cancelled the read: the answer ends and the connection closes
  } finally {
    timer.cancel();
  }
}

/** 408 for a body still arriving `seconds` after the request's head (Go's `ReadTimeout` bounds the body too). */
function bodyTimedOut(seconds: number): Response {
  return textResponse(408, `request body not received within ${seconds}s (readTimeout)`, true);
}

/**
 * The body as UTF-8 text, or the error answer: 413 past `limit` bytes, 408 when it has not
 * arrived within `readTimeout` seconds (≤ 0: no bound), 400 when it cannot be read. It is read
 * chunk by chunk and kept only up to the limit — whatever `Content-Length` said — so an endless or
 * mislabelled upload costs at most `limit` bytes of memory; past it the rest is dropped ({@link tooLarge}).
 */
async function readBody(req: Request, limit: number, readTimeout: number): Promise<string | Response> {
  const body = req.body;
  if (body === null) return ""; // GET/HEAD: Bun does not expose a body (it drains it)
  const reader = body.getReader();
  let timer: Timer | undefined;
  let timedOut = false;
  if (readTimeout > 0) {
    timer = startTimer(readTimeout * 1000, () => {
      timedOut = true;
      void reader.cancel().catch(() => {});
    });
  }
  try {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (timedOut) return bodyTimedOut(readTimeout);
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        timer?.cancel(); // the drain has its own bound
        return tooLarge(limit, reader);
      }
      chunks.push(value);
    }
    return Buffer.concat(chunks, size).toString("utf8");
  } catch {
    return timedOut ? bodyTimedOut(readTimeout) : textResponse(400, "could not read request body");
  } finally {
    timer?.cancel();
  }
}

/**
 * Bun's own `maxRequestBodySize`, bytes. Bun refuses a larger body with a bare 413 before the
 * handler runs, so it is set far above any `maxBodySize`: the handler enforces
 * the node's limit itself and its 413 names the limit, and a raised limit applies at once.
 */
const BUN_BODY_CAP = Number.MAX_SAFE_INTEGER;

/** How long a close waits for the 503 answers of the requests it cancelled to be written, ms. */
const FLUSH_MS = 250;

/**
 * The answer to a HEAD: the GET answer's status and headers without its body, with the
 * `Content-Length` that body would have had (RFC 9110 §9.3.2; Go counts the bytes the handler
 * wrote) and a `Date` — Bun writes `content-length: 0` and no `Date` for a body-less answer.
 */
async function headAnswer(answer: Response | Promise<Response>): Promise<Response> {
  const res = await answer;
  const headers = new Headers(res.headers);
  if (res.status !== 204 && res.status !== 304 && !headers.has("Content-Length")) headers.set("Content-Length", String((await res.arrayBuffer()).byteLength));
  if (!headers.has("Date")) headers.set("Date", new Date().toUTCString());
  return new Response(null, { status: res.status, headers });
}

/** A running listener. */
export class HttpListener implements Drainable {
  readonly port: number;
  /** See {@link ListenerOptions.owner}. */
  readonly owner: AbortSignal | undefined;
  #cancelledAtClose = 0;
  readonly #server: ReturnType<typeof Bun.serve>;
  /** The in-flight flows (close() without grace cancels them; the sweep enforces writeTimeout). */
  readonly #inFlight = new Set<InFlight>();
  /** Write-timeout and disconnect sweep: one timer for all requests instead of work per request. */
  readonly #sweep: ReturnType<typeof setInterval>;
  #closed: Promise<void> | undefined;
  readonly #whenClosed = Promise.withResolvers<void>();

  /**
   * Binds and starts serving.
   * @throws ListenError when Bun cannot bind (e.g. EADDRINUSE) or the TLS material is unusable.
   */
  constructor(readonly options: ListenerOptions) {
    const tls = options.tls !== undefined;
    const writeMs = options.writeTimeout > 0 ? options.writeTimeout * 1000 : 0;
    const idle = idleTimeoutFor(options.readTimeout, options.writeTimeout);
    const beyondBun = options.writeTimeout + 1 > BUN_MAX_IDLE_TIMEOUT_S;
    const inFlight = this.#inFlight;
    /** The answer for one request (not async: a request without a body costs no extra promise). */
    const handle = (req: Request, server: ReturnType<typeof Bun.serve>): Response | Promise<Response> => {
      const scan = scanHeaders(req.headers);
      const badHost = hostProblem(scan.host);
      if (badHost !== undefined) return textResponse(400, `400 Bad Request: ${badHost}`, true);
      const limit = options.maxBodyBytes();
      if (scan.contentLength !== undefined && Number(scan.contentLength) > limit) return tooLarge(limit, req.body?.getReader(), Number(scan.contentLength));
      if ((scan.contentLength !== undefined && scan.contentLength !== "0") || scan.transferEncoding) {
        return readBody(req, limit, options.readTimeout).then((body) => (typeof body === "string" ? run(req, server, scan, body) : body));
      }
      return run(req, server, scan, "");
    };
    /**
     * Runs the flow for one request: its HTTP answer, synchronously when the flow answered before
     * returning (the common case, src/core/settled.ts) — no promise, and nothing registered in flight.
     */
    const run = (req: Request, server: ReturnType<typeof Bun.serve>, scan: HeaderScan, body: string): Response | Promise<Response> => {
      if (beyondBun) server.timeout(req, 0);
      const request = buildServerRequest(req, scan, body, () => server.requestIP(req)?.address, tls, options.context());
      // One server span per request (continues the caller's traceparent); the flow runs inside it.
      const span = startHttpServerSpan(req);
      const flow = new LazyAbort();
      const deadline = writeMs > 0 ? Date.now() + writeMs : Infinity; // from the request's start
      let answered: Promise<Result>;
      try {
        answered = span.recording ? span.run(() => options.onRequest(request, flow)) : options.onRequest(request, flow);
      } catch (err) {
        answered = Promise.resolve(fail(err));
      }
      const now = fulfilledValue(answered);
      if (now !== NOT_FULFILLED) {
        const response = answerFor(now);
        span.end(response.status);
        return boundWrite(response, req, server, deadline);
      }
      return new Promise<Response>((resolve) => {
        const pending = new InFlight(inFlight, flow, req, deadline, span, (response) => resolve(boundWrite(response, req, server, deadline)));
        answered.then(
          (result) => pending.finish(result),
          (err: unknown) => pending.finish(fail(err)),
        );
      });
    };
    // One catch-all route: Hono's path for routing (getPath) is "/" for every request, so the URL is
    // not parsed for it, and the route is that static "/" (a table hit; a "*" route would run the
    // router's regular expression on every request). The request rides in as Hono's env binding:
    // reading `c.req.raw` would build a HonoRequest wrapper per request that nothing else uses; the
    // server is this listener's own.
    const app = new Hono<{ Bindings: Request }>({ getPath: () => "/" });
    app.all("/", (c) => handle(c.env, this.#server));
    try {
      this.#server = Bun.serve({
        port: options.port,
        idleTimeout: idle,
        maxRequestBodySize: BUN_BODY_CAP,
        ...(options.tls ? { tls: { cert: options.tls.cert, key: options.tls.key } } : {}),
        fetch: (req) => (req.method === "HEAD" ? headAnswer(handle(req, this.#server)) : app.fetch(req, req)),
      });
    } catch (err) {
      throw new ListenError(options.port, err);
    }
    this.port = this.#server.port ?? options.port;
    this.owner = options.owner;
    registerListener(this);
    const timeout = new FlowTimeoutError(options.writeTimeout);
    this.#sweep = setInterval(() => {
      if (inFlight.size === 0) return;
      const now = Date.now();
      for (const f of inFlight) {
        if (f.request.signal.aborted) f.abort(DISCONNECTED);
        else if (f.deadline <= now) f.abort(timeout);
      }
    }, SWEEP_MS);
  }

  /** Requests waiting for their flow now. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** Requests the close answered 503 because they ran past its grace (or were cut by a non-graceful close). */
  get cancelledAtClose(): number {
    return this.#cancelledAtClose;
  }

  #cancelInFlight(): void {
    this.#cancelledAtClose += this.#inFlight.size;
    for (const f of [...this.#inFlight]) f.abort(STOPPED);
  }

  /**
   * Stops the listener; idempotent (a later call resolves with the first). `graceful`: stop
   * accepting — new connections are refused — and let in-flight requests finish (Bun
   * `server.stop(false)`, at most `graceMs`; default Go's 30 s shutdown grace), then answer what is
   * left 503 and close every connection. Otherwise in-flight flows are cancelled first.
   */
  close(graceful: boolean, graceMs = 30_000): Promise<void> {
    this.#closed ??= (async () => {
      if (!graceful) this.#cancelInFlight();
      const stopped = this.#server.stop(false);
      await bounded(stopped, graceMs);
      if (this.#inFlight.size > 0) {
        this.#cancelInFlight();
        await bounded(stopped, FLUSH_MS); // the 503s are written before the connections close
      }
      clearInterval(this.#sweep);
      await this.#server.stop(true);
      unregisterListener(this);
      this.#whenClosed.resolve();
    })();
    return this.#closed;
  }

  /** Resolves once the listener closed, whoever closed it (its component, or the host's shutdown drain). */
  get whenClosed(): Promise<void> {
    return this.#whenClosed.promise;
  }
}
