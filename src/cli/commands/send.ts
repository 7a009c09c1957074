/**
 * `tinyhost send <node> <port> ['<json>']`: sends one message into a running flow, as the
 * platform's `send_signal` does (From `signal`), so a flow can be started, reset or fed from a
 * terminal or a script.
 * - `--local <dir>` (or `--console <url>`): to the `run --local <dir>` running there, through its
 *   console's API (src/console/api.ts); the node may be named by its full name, its label or its
 *   name's last segment.
 * - otherwise to a cluster over NATS (`--nats-url`, default `$TINY_NATS_URL`), exactly as the Go
 *   SDK's `wire.Publish` (src/transport/nats/publish.ts); `--transport jetstream` (default from
 *   `$TINY_NATS_TRANSPORT`) when the modules run on JetStream. The node is its full name.
 * `--wait` prints the reply (the hop's result) and exits 1 when the hop failed or timed out; exit 3
 * when a JetStream stream holds the message but no result came ({@link STORED_EXIT}).
 */
import { resolve } from "node:path";
import type { CommandRunner } from "../command.ts";
import { SETTINGS_PORT, SETTINGS_REFUSED } from "../../console/settings-port.ts";
import { FlagError, parseFlags } from "../flags.ts";
import { ENV_NATS_TRANSPORT, ENV_NATS_URL } from "../../transport/select.ts";
import { messageOf } from "../../core/errors.ts";

/** Usage of `tinyhost send`. */
export const SEND_USAGE = `Usage: tinyhost send [flags] <node> <port> ['<json>']

Sends <json> (default {}) to <node>'s <port> as the platform's send_signal does (from "signal"),
e.g. tinyhost send --local examples/tick-count "Count ticks" _control '{"reset":true}'.
'-' reads the JSON from standard input.

Local mode (a running \`tinyhost run --local <dir>\`; <node> is a name, label or name segment):
  --local <dir>        the manifests directory it runs (its console's address is in <dir>/.tinyhost/)
  --console <url>      or its console's URL, e.g. http://127.0.0.1:7878
Cluster (<node> is the node's full name):
  --nats-url <url>     NATS of the cluster (default $${ENV_NATS_URL})
  --transport <t>      core or jetstream, as the modules run (default $${ENV_NATS_TRANSPORT}, else core)
  --id <key>           jetstream: message id; the broker drops a resend with the same id within 2 min
Both:
  --wait               wait for the hop's result and print it (exit 1 when it failed)
  --timeout <d>        longest wait: 500ms, 30s, 2m (default 30s: outlasts a cold start from zero replicas)

Exit: 0 sent or done, 1 failed, 2 usage, 3 stored by a JetStream stream without a result here
(STORED_PENDING: no result in time; TRANSPORT_MISMATCH: a core send the stream captured;
DUPLICATE: dropped as a resend of --id) — it runs as the message says: do not resend.`;

/** Exit code when a JetStream stream holds the message but this send has no result for it. */
export const STORED_EXIT = 3;

/** Error codes that mean "stored, will run (or ran), no result here" ({@link STORED_EXIT}). */
const STORED_CODES: ReadonlySet<string> = new Set(["STORED_PENDING", "TRANSPORT_MISMATCH", "DUPLICATE"]);

/** Parsed arguments of `send`. */
export interface SendArgs {
  node: string;
  port: string;
  /** The payload, parsed. */
  data: unknown;
  target: { kind: "local"; dir: string } | { kind: "console"; url: string } | { kind: "nats"; url: string; transport: "core" | "jetstream" };
  wait: boolean;
  timeoutMs: number;
  /** `--id`: the JetStream message id (`Nats-Msg-Id`) for de-duplication by the stream. */
  msgId?: string;
}

/**
 * Default `--timeout`, ms (Go `wire.Publish`: 30 s). It outlasts a cold start from zero replicas
 * with the default KEDA polling of 10 s (docs/operations.md §15: ≤ 10 s + 5–8 s).
 */
export const DEFAULT_SEND_TIMEOUT_MS = 30_000;

/**
 * A duration as `tinyhost send --timeout` takes it: `<n>ms`, `<n>s`, `<n>m` (Go's
 * `time.ParseDuration` units for the ones that make sense here) or a plain number of ms.
 * @returns ms, or undefined when `text` is not one of those or not positive.
 */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (!m) return undefined;
  const ms = Number(m[1]) * (m[2] === "s" ? 1000 : m[2] === "m" ? 60_000 : 1);
  return ms > 0 && Number.isFinite(ms) ? Math.round(ms) : undefined;
}

/**
 * Parses the arguments of `send`.
 * @param stdin reads standard input (for the JSON argument `-`).
 * @returns the arguments, `"help"`, or a usage error message naming the argument and its value.
 */
export async function parseSendArgs(
  args: readonly string[],
  env: Record<string, string | undefined> = process.env,
  stdin: () => Promise<string> = () => Bun.stdin.text(),
): Promise<SendArgs | "help" | string> {
  let parsed;
  try {
    parsed = parseFlags(
      args,
      {
        local: { type: "string", valueName: "a directory" },
        console: { type: "string", valueName: "a URL" },
        "nats-url": { type: "string", valueName: "a URL" },
        transport: { type: "string" },
        wait: { type: "boolean" },
        timeout: { type: "string", valueName: "a number of ms" },
        id: { type: "string", valueName: "a key" },
        help: { type: "boolean", short: "h" },
      },
      { positionals: true },
    );
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    return err.message;
  }
  const { values: v, positionals: p } = parsed;
  if (v.help) return "help";
  if (p.length < 2) return `needs <node> and <port>${p.length ? ` (got only ${JSON.stringify(p[0])})` : ""}`;
  if (p.length > 3)
    return `too many arguments: ${p
      .slice(3)
      .map((a) => JSON.stringify(a))
      .join(" ")} (put the JSON in one quoted argument)`;
  const [node, port] = p as [string, string];
  if (node === "") return "<node> is empty";
  if (port === "" || port.includes(":")) return `<port> must be a port name, got ${JSON.stringify(port)}`;
  if (port === SETTINGS_PORT) return SETTINGS_REFUSED;
  const text = p[2] === "-" ? await stdin() : (p[2] ?? "{}");
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return `the message is not JSON: ${(err as Error).message} (got ${JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)})`;
  }
  const timeoutMs = v.timeout === undefined ? DEFAULT_SEND_TIMEOUT_MS : parseDuration(v.timeout);
  if (timeoutMs === undefined) return `--timeout must be a duration like 500ms, 30s or 2m, got ${JSON.stringify(v.timeout)}`;
  const local = [v.local !== undefined && "--local", v.console !== undefined && "--console"].filter(Boolean);
  if (local.length === 2) return "give --local <dir> or --console <url>, not both";
  if (local.length && (v["nats-url"] !== undefined || v.transport !== undefined))
    return `${local[0]} sends to local mode; --nats-url and --transport are for a cluster`;
  let target: SendArgs["target"];
  if (v.local !== undefined) target = { kind: "local", dir: resolve(v.local) };
  else if (v.console !== undefined) {
    if (!/^https?:\/\/[^/]+/.test(v.console)) return `--console must be the console's URL, e.g. http://127.0.0.1:7878, got ${JSON.stringify(v.console)}`;
    target = { kind: "console", url: v.console.replace(/\/+$/, "") };
  } else {
    const url = (v["nats-url"] ?? env[ENV_NATS_URL] ?? "").trim();
    if (url === "") return `say where the flow runs: --local <dir> for local mode, or --nats-url <url> (or $${ENV_NATS_URL}) for a cluster`;
    const transport = v.transport ?? (env[ENV_NATS_TRANSPORT] === "jetstream" ? "jetstream" : "core");
    if (transport !== "core" && transport !== "jetstream") return `--transport must be core or jetstream, got ${JSON.stringify(transport)}`;
    target = { kind: "nats", url, transport };
  }
  if (v.id !== undefined) {
    if (target.kind !== "nats" || target.transport !== "jetstream")
      return `--id needs --transport jetstream (the stream drops a resend with the same id; core NATS and local mode keep no ids), got --id ${JSON.stringify(v.id)}`;
    if (!/^[\x21-\x7e]{1,256}$/.test(v.id)) return `--id must be 1 to 256 printable characters without spaces, got ${JSON.stringify(v.id)}`;
  }
  return { node, port, data, target, wait: v.wait ?? false, timeoutMs, ...(v.id !== undefined ? { msgId: v.id } : {}) };
}

/** What a send printed and its exit code (for tests and the command). */
interface Outcome {
  out: string[];
  err: string[];
  code: number;
}

async function sendLocal(a: SendArgs, url: string): Promise<Outcome> {
  const { sendToConsole } = await import("../../console/client.ts");
  const answer = await sendToConsole(url, a.node, a.port, a.data, { wait: a.wait, timeoutMs: a.timeoutMs });
  const to = `${answer.shown}:${answer.port}`;
  switch (answer.result) {
    case "sent":
      return { out: [], err: [`sent to ${to}`], code: 0 };
    case "ok":
      return { out: [answer.value], err: [], code: 0 };
    case "empty":
      return { out: [], err: [`${to}: done, no result`], code: 0 };
    case "fail":
      return { out: [], err: [`${to} failed: ${answer.error}${answer.code ? ` [${answer.code}]` : ""}`], code: 1 };
    case "timeout":
      return { out: [], err: [`${to}: ${answer.error}`], code: 1 };
  }
}

async function sendNats(a: SendArgs, url: string, transport: "core" | "jetstream"): Promise<Outcome> {
  const [{ connectNats }, { publishToNode }] = await Promise.all([import("../../transport/nats/connect.ts"), import("../../transport/nats/publish.ts")]);
  const { errorCode } = await import("../../core/errors.ts");
  // The module's connect options (runtime-spec §4.1): a first connect that fails within 5 s is an error.
  let nc: Awaited<ReturnType<typeof connectNats>>;
  try {
    nc = await connectNats(url, { name: "tinyhost-send" });
  } catch (err) {
    return { out: [], err: [`cannot connect to NATS at ${url}: ${messageOf(err)}`], code: 1 };
  }
  try {
    const { subject, result, stored } = await publishToNode(nc, a.node, a.port, a.data, {
      wait: a.wait,
      timeoutMs: a.timeoutMs,
      transport,
      ...(a.msgId !== undefined ? { msgId: a.msgId } : {}),
    });
    const to = `${a.node}:${a.port}`;
    if (result.kind === "fail") {
      const code = errorCode(result.error) ?? (result.error as { code?: string }).code;
      const named = code && !result.error.message.startsWith(`${code}: `) ? ` [${code}]` : "";
      if (code !== undefined && STORED_CODES.has(code)) return { out: [], err: [`${to}: ${result.error.message}${named}`], code: STORED_EXIT };
      return { out: [], err: [`${to} failed: ${result.error.message}${named}`], code: 1 };
    }
    if (stored?.duplicate)
      return {
        out: [],
        err: [`${to}: not sent again: stream ${stored.stream} already holds a message with id ${JSON.stringify(a.msgId)} (seq ${stored.seq}); it runs once`],
        code: 0,
      };
    // Core NATS publishes fire-and-forget, as Go's wire.Publish without WaitForReply: nothing says
    // whether a module listens, so the line says so instead of implying delivery.
    if (!a.wait)
      return {
        out: [],
        err: [
          `sent to ${to} (${subject}${transport === "jetstream" ? ", stored by JetStream" : "; core NATS does not report whether a module received it: --wait does"})`,
        ],
        code: 0,
      };
    if (result.kind === "empty") return { out: [], err: [`${to}: done, no result`], code: 0 };
    const v = result.value;
    return { out: [v instanceof Uint8Array ? new TextDecoder().decode(v) : (JSON.stringify(v) ?? "null")], err: [], code: 0 };
  } finally {
    await nc.close();
  }
}

/**
 * Runs a parsed send.
 * @returns the lines for stdout and stderr and the exit code (0 sent or ok, 1 failed, timed out or unreachable,
 *   {@link STORED_EXIT} stored by a stream with no result here).
 */
export async function runSend(a: SendArgs): Promise<Outcome> {
  try {
    if (a.target.kind === "nats") return await sendNats(a, a.target.url, a.target.transport);
    let url: string;
    if (a.target.kind === "console") url = a.target.url;
    else {
      const { findConsole } = await import("../../console/discovery.ts");
      const found = findConsole(a.target.dir);
      url = found.record.url;
      // Several hosts on one directory: say which one is used (stderr, so stdout stays the result).
      if (found.note) {
        const r = await sendLocal(a, url);
        return { ...r, err: [found.note, ...r.err] };
      }
    }
    return await sendLocal(a, url);
  } catch (err) {
    return { out: [], err: [(err as Error).message], code: 1 };
  }
}

/** The `send` sub-command. Exit codes: 0 sent (or ok), 1 failed, 2 usage error, {@link STORED_EXIT} stored without a result. */
export const sendCommand: CommandRunner = {
  name: "send",
  async run(args) {
    const parsed = await parseSendArgs(args);
    if (parsed === "help") {
      console.log(SEND_USAGE);
      return 0;
    }
    if (typeof parsed === "string") {
      console.error(`tinyhost send: ${parsed}\n\n${SEND_USAGE}`);
      return 2;
    }
    const r = await runSend(parsed);
    for (const l of r.out) console.log(l);
    for (const l of r.err) console.error(r.code === 0 ? l : `tinyhost send: ${l}`);
    return r.code;
  },
};
