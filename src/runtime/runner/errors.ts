/**
 * Errors the runner and scheduler raise. Each has a `code` and names the node, port and value
 * involved (project standard: a malformed message fails that hop, never the process).
 */
import { TinyError, messageOf } from "../../core/errors.ts";

/** One schema violation of incoming port data (mirrors the schema module's `ValidationIssue`). */
export interface PortIssue {
  /** JSON pointer or `$.a.b` path of the offending field. */
  path: string;
  /** The schema keyword broken, e.g. `"required"`, `"type"`. */
  rule: string;
  /** Human description. */
  message: string;
}

/** Incoming data does not match the target port's schema. code `"VALIDATION"`. Fails that hop only. */
export class PortValidationError extends TinyError {
  constructor(
    readonly node: string,
    readonly port: string,
    readonly issues: readonly PortIssue[],
  ) {
    const first = issues[0];
    const detail = first ? `field ${first.path || "$"} breaks rule "${first.rule}": ${first.message}` : "invalid data";
    const more = issues.length > 1 ? ` (+${issues.length - 1} more)` : "";
    super("VALIDATION", `node ${node} port ${port}: ${detail}${more}`);
  }
}

/** The incoming payload is not decodable JSON. code `"DECODE"`. */
export class PayloadDecodeError extends TinyError {
  constructor(node: string, port: string, cause: unknown) {
    super("DECODE", `node ${node} port ${port}: payload is not valid JSON: ${messageOf(cause)}`, { cause });
  }
}

/**
 * A component's `ports()` declared two ports with one name. code `"DUPLICATE_PORT"`. The runner
 * treats it as a throw of `ports()` (a fault of that node, its last good list kept): Go's runner
 * lists both in the status and feeds hops to the first, so half the declaration is silently
 * ignored (docs/compatibility.md).
 */
export class DuplicatePortError extends TinyError {
  constructor(
    readonly node: string,
    readonly port: string,
  ) {
    super("DUPLICATE_PORT", `node ${node}: ports() declares port ${JSON.stringify(port)} twice; port names must be unique on a node`);
  }
}

/**
 * The list `ports()` returned, checked for names declared twice.
 * @throws DuplicatePortError naming the first repeated name.
 */
export function uniquePorts<P extends { name: string }>(node: string, ports: readonly P[]): readonly P[] {
  const seen = new Set<string>();
  for (const p of ports) {
    if (seen.has(p.name)) throw new DuplicatePortError(node, p.name);
    seen.add(p.name);
  }
  return ports;
}

/** A hop without a port in `to`. code `"NO_PORT"` (runtime-spec §2.2 step 1: "input port is empty"). */
export class EmptyPortError extends TinyError {
  constructor(to: string) {
    super("NO_PORT", `input port is empty in destination ${JSON.stringify(to)}`);
  }
}

/** The node was stopped while the hop was in flight. code `"NODE_STOPPED"`. */
export class NodeStoppedError extends TinyError {
  constructor(node: string) {
    super("NODE_STOPPED", `node ${node} stopped`);
  }
}

/**
 * A hop still running when its node's component was replaced (a component file, TinyComponent or
 * registry change) and the reload grace ran out: the old version was stopped under it. code
 * `"NODE_RELOADED"`; the scheduler wraps it retryable, so an edge retry or a durable run's
 * redelivery runs the hop again on the new version instead of recording the step failed.
 */
export class NodeReloadedError extends TinyError {
  /** @param node the node; @param component its (new) component; @param graceMs how long the old version was given. */
  constructor(node: string, component: string, graceMs: number) {
    super(
      "NODE_RELOADED",
      `node ${node} was reloaded (component ${component} changed) and this hop did not finish within the ${graceMs} ms reload grace, so it was aborted; a retry runs on the new version`,
    );
  }
}

/**
 * An edge's `retryPolicy.timeoutMs` elapsed across all attempts. code `"EDGE_TIMEOUT"` (runtime-spec
 * §2.5). `cause`: the wire's deadline error when the transport's timer fired first (e.g. gRPC
 * `DEADLINE_EXCEEDED`), else none.
 */
export class EdgeTimeoutError extends TinyError {
  constructor(edge: string, to: string, timeoutMs: number, cause?: Error) {
    super("EDGE_TIMEOUT", `edge ${edge || "(direct)"} to ${to}: timed out after ${timeoutMs} ms`, cause ? { cause } : undefined);
  }
}

/** The hop was cancelled by its caller or by a node stop. code `"CANCELLED"`. */
export class HopCancelledError extends TinyError {
  constructor(to: string, reason: unknown) {
    super("CANCELLED", `hop to ${to} cancelled${reason instanceof Error ? `: ${reason.message}` : reason !== undefined ? `: ${String(reason)}` : ""}`);
  }
}

/**
 * The node's status writes are failing: shown as the node's status while they do (the
 * TinyNode reconciler publishes it), cleared by the next write that succeeds. code `"STATUS_WRITE_FAILED"`.
 */
export class StatusWriteError extends TinyError {
  constructor(node: string, failures: number, retryInMs: number, unwrittenKeys: readonly string[], cause: unknown) {
    const keys = unwrittenKeys.length ? `; state not persisted yet: ${unwrittenKeys.map((k) => JSON.stringify(k)).join(", ")}` : "";
    super(
      "STATUS_WRITE_FAILED",
      `node ${node}: status write failed ${failures} time${failures === 1 ? "" : "s"} in a row (${messageOf(cause)})${keys}; retrying in ${retryInMs} ms`,
      { cause },
    );
  }
}
