/**
 * The process-level last resort: an exception no guard caught (a bare `setTimeout`
 * callback that throws, a promise a component forgot) is logged, attributed to a node where the
 * error or its stack allows it, counted (`tinyhost_uncaught_errors_total`), and the process keeps
 * serving. Component code normally never gets here: the node guard (src/runtime/runner/guard.ts)
 * and the SDK's nodeTimeout/nodeTask/BackgroundLoop catch its throws first. Without these handlers
 * Bun prints the raw stack and exits (Node's default for uncaught exceptions, nodejs.org/api/process.html#event-uncaughtexception).
 */
import { resolve, sep } from "node:path";
import { componentFaults } from "../runtime/runner/guard.ts";
import { toError } from "../core/result.ts";
import type { ComponentLogger } from "../core/context.ts";

/** tinyhost's own source tree: frames in it are the runtime, not the component. */
const RUNTIME_SRC = resolve(import.meta.dir, "..") + sep;

/** Who threw: the node an error names (TinyErrors of the runtime and ComponentFaultError carry one), and the first stack frame outside the runtime. */
export interface Attribution {
  /** TinyNode name, when the error carries one (`err.node`). */
  node?: string;
  /** `file:line:col` of the first frame outside tinyhost's src/ and node_modules, e.g. a component file. */
  at?: string;
}

/**
 * Reads what the error tells about its origin.
 * @returns the node and/or frame found; `{}` when neither is known.
 */
export function attribute(err: unknown): Attribution {
  const out: Attribution = {};
  const node = (err as { node?: unknown } | null)?.node;
  if (typeof node === "string" && node !== "") out.node = node;
  const stack = err instanceof Error ? (err.stack ?? "") : "";
  for (const line of stack.split("\n").slice(1)) {
    const m = /\(?((?:file:\/\/)?\/[^()]+?):(\d+):(\d+)\)?\s*$/.exec(line.trim());
    if (!m) continue;
    const file = m[1]!.replace(/^file:\/\//, "");
    if (file.startsWith(RUNTIME_SRC) || file.includes(`${sep}node_modules${sep}`)) continue;
    out.at = `${file}:${m[2]}:${m[3]}`;
    break;
  }
  return out;
}

/**
 * Installs the handlers (`uncaughtException`, `unhandledRejection`) on `process`.
 * @param log where the line goes (error level, message names the kind).
 * @returns a function that removes them.
 */
export function installLastResort(log: ComponentLogger): () => void {
  const handle = (kind: "uncaught exception" | "unhandled rejection") => (err: unknown) => {
    componentFaults.uncaught++;
    const e = toError(err);
    // The error text goes in `err` only: local mode's terminal line prints `<msg>: <err>`.
    log.error({ ...attribute(err), err: e.message, stack: e.stack, kind }, `${kind} caught by the last resort (no node guard saw it); serving on`);
  };
  const onException = handle("uncaught exception");
  const onRejection = handle("unhandled rejection");
  process.on("uncaughtException", onException);
  process.on("unhandledRejection", onRejection);
  return () => {
    process.off("uncaughtException", onException);
    process.off("unhandledRejection", onRejection);
  };
}
