/**
 * The console's HTTP API and page, one Hono app (the same stack as the health server,
 * src/server/app.ts):
 * - `GET /` — the page; `GET /console.js`, `GET /console.css` — its script and style;
 * - `GET /api/flow` — the {@link FlowView};
 * - `GET /api/hops?node=&edge=&after=` — the kept hops ({@link HopEvent}s), oldest first;
 * - `GET /api/events?node=&edge=` — the live stream (./stream.ts);
 * - `POST /api/send` `{node, port, data, wait?, timeoutMs?}` — a hop from outside the flow, as the
 *   platform's `send_signal` sends it (From `signal`); `node` is a name, label or name segment
 *   (./resolve.ts). Answers {@link SendAnswer}. `tinyhost send` in local mode is a client of this.
 * Every route is behind the loopback guard (./guard.ts). Payloads are redacted (src/telemetry/redact.ts).
 */
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import type { TinyNode } from "../core/api/index.ts";
import type { HopListener } from "../local/flow-events.ts";
import type { Result } from "../core/result.ts";
import { withoutNodePrefix } from "../local/failure-log.ts";
import { displayNames } from "../local/node-names.ts";
import { flowView, type FlowView } from "./flow-view.ts";
import { loopbackGuard } from "./guard.ts";
import { hopText } from "../local/hop-watch.ts";
import { codeOf, type HopFilter, type HopHistory } from "./history.ts";
import { CONSOLE_CSS, CONSOLE_JS, pageHtml } from "./page.ts";
import { NodeLookupError, resolveNode } from "./resolve.ts";
import { StreamClient } from "./stream.ts";
import { SETTINGS_PORT, SETTINGS_REFUSED } from "./settings-port.ts";
import { withDeadline } from "../core/timer.ts";
import { maskSecretValues } from "../telemetry/secret-values.ts";

/** What the console needs of a running local host (a {@link LocalHost} has all of it). */
export interface ConsoleHost {
  /** The module local mode runs as. */
  readonly module: string;
  /** The in-memory TinyNode API. */
  readonly nodes: { items(): TinyNode[] };
  /** The runners: whether a node runs here and which ports it has. */
  readonly scheduler: { runner(name: string): { ports(): readonly { name: string; source: boolean }[] } | undefined };
  /** Every hop from now on (src/local/flow-events.ts). */
  onHop(listener: HopListener): () => void;
  /** Sends `data` to `node:port` from `signal`; resolves to the hop's result. */
  send(node: string, port: string, data: unknown): Promise<Result>;
}

/** Default wait of `POST /api/send` with `wait`, ms (Go `wire.Publish` waits 30 s by default). */
export const SEND_TIMEOUT_MS = 30_000;
/** Longest `timeoutMs` `POST /api/send` accepts, ms. */
export const SEND_MAX_TIMEOUT_MS = 10 * 60_000;

/** Which node a send went to: its full name and the name a human reads (src/local/node-names.ts). */
export interface SendTarget {
  node: string;
  shown: string;
  port: string;
}

/** The answer of `POST /api/send`. */
export type SendAnswer = SendTarget &
  (
    | { result: "sent" }
    | { result: "ok"; value: string; ms: number }
    | { result: "empty"; ms: number }
    | { result: "fail"; error: string; code?: string; ms: number }
    | { result: "timeout"; error: string; ms: number }
  );

/** What the API shares with the console's runnable. */
export interface ConsoleState {
  host: ConsoleHost;
  history: HopHistory;
  /** Open pages. */
  clients: Set<StreamClient>;
  /** The bound port (0 until bound). */
  port(): number;
}

function filterOf(q: (k: string) => string | undefined): HopFilter {
  const node = q("node");
  const edge = q("edge");
  return { ...(node ? { node } : {}), ...(edge ? { edge } : {}) };
}

/** The current flow of `s`. */
export function snapshot(s: ConsoleState): FlowView {
  return flowView({
    module: s.host.module,
    items: () => s.host.nodes.items(),
    running: (name) => s.host.scheduler.runner(name) !== undefined,
    lastError: (name) => s.history.lastError(name),
  });
}

type SendBody = { node?: unknown; port?: unknown; data?: unknown; wait?: unknown; timeoutMs?: unknown };

/** Builds the console app over `s`. */
export function consoleApp(s: ConsoleState): Hono {
  const app = new Hono();
  app.use(
    "*",
    loopbackGuard(() => s.port()),
  );
  app.use("*", async (c, next) => {
    await next();
    c.header("Cache-Control", "no-store");
    c.header("X-Content-Type-Options", "nosniff");
  });
  app.get("/", (c) => {
    c.header("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'");
    return c.html(pageHtml(s.host.module));
  });
  app.get("/console.js", (c) => c.body(CONSOLE_JS, 200, { "Content-Type": "text/javascript; charset=utf-8" }));
  app.get("/console.css", (c) => c.body(CONSOLE_CSS, 200, { "Content-Type": "text/css; charset=utf-8" }));
  app.get("/api/flow", (c) => c.json(snapshot(s)));
  app.get("/api/hops", (c) => {
    const after = Number(c.req.query("after") ?? 0);
    if (!Number.isSafeInteger(after) || after < 0)
      return c.json({ error: `after must be a sequence number ≥ 0, got ${JSON.stringify(c.req.query("after"))}` }, 400);
    return c.json({
      seq: s.history.seq,
      hops: s.history.list(
        filterOf((k) => c.req.query(k)),
        after,
      ),
    });
  });
  app.get("/api/events", (c) => {
    const last = Number(c.req.header("last-event-id") ?? c.req.query("after") ?? 0);
    const client = new StreamClient(
      filterOf((k) => c.req.query(k)),
      Number.isSafeInteger(last) && last > 0 ? last : 0,
    );
    return streamSSE(c, async (stream) => {
      s.clients.add(client);
      try {
        await client.run(stream, () => snapshot(s), s.history);
      } finally {
        s.clients.delete(client);
      }
    });
  });
  app.post("/api/send", async (c) => {
    let body: SendBody;
    try {
      body = (await c.req.json()) as SendBody;
    } catch (err) {
      return c.json({ error: `the body is not JSON: ${(err as Error).message}` }, 400);
    }
    if (typeof body !== "object" || body === null) return c.json({ error: "the body must be a JSON object {node, port, data}" }, 400);
    if (typeof body.node !== "string" || body.node === "")
      return c.json({ error: `node must be a node name, label or name segment, got ${JSON.stringify(body.node)}` }, 400);
    if (typeof body.port !== "string" || body.port === "" || body.port.includes(":"))
      return c.json({ error: `port must be a port name, got ${JSON.stringify(body.port)}` }, 400);
    if (body.port === SETTINGS_PORT) return c.json({ error: SETTINGS_REFUSED, code: "SETTINGS_PORT" }, 400);
    const timeoutMs = body.timeoutMs === undefined ? SEND_TIMEOUT_MS : Number(body.timeoutMs);
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > SEND_MAX_TIMEOUT_MS)
      return c.json({ error: `timeoutMs must be 1–${SEND_MAX_TIMEOUT_MS}, got ${JSON.stringify(body.timeoutMs)}` }, 400);
    let node: string;
    try {
      node = resolveNode(body.node, s.host.nodes.items());
    } catch (err) {
      if (err instanceof NodeLookupError) return c.json({ error: err.message, code: err.code }, err.code === "UNKNOWN_NODE" ? 404 : 409);
      throw err;
    }
    const port = body.port;
    const names = displayNames(s.host.nodes.items());
    const shown = (name: string) => names.get(name) ?? name;
    // No runner: the node is being replaced (a component reload) or cannot run. The hop itself
    // waits for the new runner, and fails at once with the reason for a node that cannot run.
    const runner = s.host.scheduler.runner(node);
    const ports = runner?.ports() ?? [];
    const target = ports.find((p) => p.name === port);
    if (runner && (!target || (target.source && !port.startsWith("_")))) {
      const inputs = ports.filter((p) => !p.source || p.name.startsWith("_")).map((p) => p.name);
      const what = target ? `${JSON.stringify(port)} is an output port` : `there is no port ${JSON.stringify(port)}`;
      return c.json({ error: `node ${shown(node)}: ${what} (its input ports: ${inputs.join(", ") || "none"})`, code: "UNKNOWN_PORT" }, 400);
    }
    const t0 = performance.now();
    const hop = s.host.send(node, port, body.data ?? null);
    if (body.wait === false) {
      void hop; // the hop goes on; its outcome is in the stream
      return c.json({ node, shown: shown(node), port, result: "sent" } satisfies SendAnswer, 202);
    }
    const r = await withDeadline(hop, timeoutMs, () => "timeout" as const);
    const ms = Math.round((performance.now() - t0) * 1000) / 1000;
    const to: SendTarget = { node, shown: shown(node), port };
    let answer: SendAnswer;
    if (r === "timeout") answer = { ...to, result: "timeout", error: `no result within ${timeoutMs} ms; the hop goes on`, ms };
    else if (r.kind === "ok") answer = { ...to, result: "ok", value: hopText(r.value), ms };
    else if (r.kind === "empty") answer = { ...to, result: "empty", ms };
    else {
      const code = codeOf(r.error);
      answer = { ...to, result: "fail", error: withoutNodePrefix(maskSecretValues(r.error.message), node, port), ...(code ? { code } : {}), ms };
    }
    return c.json(answer, r === "timeout" ? 504 : 200);
  });
  return app;
}
