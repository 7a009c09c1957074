/**
 * The runtime's logger in local mode. In a cluster, warnings and errors of the runtime and of
 * components are JSON lines for a log pipeline (src/telemetry/log.ts); on a developer's terminal
 * they are events of the human log, printed once. This logger hands every `warn`/`error` line to a
 * sink (the local host decides: drop it as a repeat of an event already printed, turn it into a
 * node status, or print it as one human line) and passes `debug`/`info` to the JSON logger, which
 * prints them only when `TINYHOST_LOG_LEVEL` asks for them.
 */
import type { ComponentLogger } from "../core/context.ts";
import { redactValue } from "../telemetry/redact.ts";
import { maskSecretValues } from "../telemetry/secret-values.ts";

/** A `warn` or `error` line of the runtime or a component. */
export interface LogEvent {
  level: "warn" | "error";
  /** Node the line is about: the logger's `node` binding (runner loggers), else a `node` field. */
  node: string;
  /** Port the line is about: the hop's `port` binding (a port name), else `""`. */
  port: string;
  /** The line's message. */
  msg: string;
  /** The `err` field when it is a string (components log `err: error.message`). */
  err?: string;
  /** Every field of the line (bindings excluded). */
  fields: Readonly<Record<string, unknown>>;
}

type Inner = ComponentLogger & { child?(bindings: object): ComponentLogger };

/** A {@link ComponentLogger} whose warnings and errors go to a sink instead of JSON. */
export class HumanLogger implements ComponentLogger {
  /**
   * @param inner the JSON logger for `debug`/`info`.
   * @param sink receives every `warn`/`error` line.
   * @param bindings fields bound by {@link child} (`node`, `port`).
   */
  constructor(
    readonly inner: Inner,
    readonly sink: (event: LogEvent) => void,
    readonly bindings: Readonly<Record<string, unknown>> = {},
  ) {}

  /** Passed to the JSON logger. */
  debug(obj: object | string, msg?: string): void {
    this.inner.debug(obj, msg);
  }

  /** Passed to the JSON logger. */
  info(obj: object | string, msg?: string): void {
    this.inner.info(obj, msg);
  }

  /** Handed to the sink. */
  warn(obj: object | string, msg?: string): void {
    this.#emit("warn", obj, msg);
  }

  /** Handed to the sink. */
  error(obj: object | string, msg?: string): void {
    this.#emit("error", obj, msg);
  }

  /** A logger with `bindings` added (the runner binds `node`, then `port` per hop). */
  child(bindings: object): HumanLogger {
    const inner = typeof this.inner.child === "function" ? this.inner.child(bindings) : this.inner;
    return new HumanLogger(inner as Inner, this.sink, { ...this.bindings, ...bindings });
  }

  #emit(level: "warn" | "error", obj: object | string, msg: string | undefined): void {
    // The JSON logger's redaction (src/telemetry/log.ts): these lines bypass it on their way to the terminal.
    const fields: Record<string, unknown> = typeof obj === "string" ? {} : { ...(redactValue(obj) as Record<string, unknown>) };
    const text = maskSecretValues(typeof obj === "string" ? obj : (msg ?? ""));
    const bound = typeof this.bindings.node === "string" ? this.bindings.node : undefined;
    const node = bound ?? (typeof fields.node === "string" ? fields.node : "");
    const port = typeof this.bindings.port === "string" ? this.bindings.port : "";
    const err = typeof fields.err === "string" ? fields.err : fields.err instanceof Error ? maskSecretValues(fields.err.message) : undefined;
    this.sink({ level, node, port, msg: text, ...(err !== undefined ? { err } : {}), fields });
  }
}

/** Fields a human line shows as `(k=v, …)`: all but those already in the line. */
const SHOWN_ELSEWHERE = new Set(["node", "err", "component", "msg", "stack"]); // a stack cut at 60 characters says nothing; `at` names the line

/**
 * The text of a human line for `event`: `<msg>: <err> (k=v, …)`, the extra fields' values as JSON
 * cut at 60 characters.
 */
export function logEventText(event: LogEvent): string {
  const extras = Object.entries(event.fields)
    .filter(([k, v]) => !SHOWN_ELSEWHERE.has(k) && v !== undefined)
    .map(([k, v]) => {
      const s = typeof v === "string" ? v : (JSON.stringify(v) ?? String(v));
      return `${k}=${s.length > 60 ? `${s.slice(0, 60)}…` : s}`;
    });
  return `${event.msg || "(no message)"}${event.err !== undefined ? `: ${event.err}` : ""}${extras.length ? ` (${extras.join(", ")})` : ""}`;
}
