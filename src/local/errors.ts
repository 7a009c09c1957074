/**
 * Errors of local mode. A manifest error names the file, the line (when known) and the node, so a
 * developer can jump to it; it never stops the other nodes.
 */
import { TinyError } from "../core/errors.ts";

/** Why a manifest was refused or flagged. */
export type ManifestErrorCode =
  /** The file is not valid YAML (the `yaml` package's message and position). */
  | "YAML_SYNTAX"
  /** A document is YAML but not a usable TinyProject/TinyFlow/TinyNode (a field is missing or wrong). */
  | "MANIFEST_INVALID"
  /** Two documents declare the same TinyNode name. */
  | "DUPLICATE_NODE"
  /** The node's `spec.component` is not a component this module serves. */
  | "UNKNOWN_COMPONENT"
  /** The manifests file could not be read. */
  | "READ_FAILED"
  /** A `{{expression}}` in a `spec.ports[].configuration` does not parse (the node still runs; hops using that config fail). */
  | "EXPRESSION_SYNTAX"
  /** An edge leaves from a port its node does not declare, or goes to a node or port that does not exist. */
  | "EDGE_TARGET"
  /** `spec.module` differs from the module segment of the node's name (a warning: the name decides). */
  | "MODULE_MISMATCH";

/** Codes reported as warnings (the node runs as declared); every other code is an error. */
const WARNING_CODES: ReadonlySet<ManifestErrorCode> = new Set(["MODULE_MISMATCH"]);

/**
 * A problem with one manifest document. `message` reads `<file>:<line>[:<column>]: node <name>: <what>`
 * (line, column and node only when known).
 */
export class ManifestError extends TinyError {
  /** `"warning"` for {@link ManifestErrorCode}s that do not stop anything (MODULE_MISMATCH), else `"error"`. */
  readonly severity: "error" | "warning";

  /**
   * @param code what kind of problem.
   * @param file the manifest file, as shown to the user (local mode passes paths relative to the
   *   working directory when inside it, else absolute).
   * @param line 1-based line of the offending document or field; 0 when unknown.
   * @param node the TinyNode name, or `""` when the document has none (or is not a node).
   * @param detail the problem, naming the field and value.
   * @param column 1-based column, 0 when unknown (YAML syntax errors give one).
   */
  constructor(
    code: ManifestErrorCode,
    readonly file: string,
    readonly line: number,
    readonly node: string,
    readonly detail: string,
    readonly column = 0,
  ) {
    super(code, `${file}${line > 0 ? `:${line}${column > 0 ? `:${column}` : ""}` : ""}: ${node ? `node ${node}: ` : ""}${detail}`);
    this.severity = WARNING_CODES.has(code) ? "warning" : "error";
  }
}

/** Local mode could not start (bad directory, no components directory, bad flag value). code `"LOCAL_START"`. */
export class LocalStartError extends TinyError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("LOCAL_START", message, options);
  }
}

/**
 * Another live process holds the state file's lock. code `"STATE_LOCKED"`. Two local-mode processes
 * writing one state file would both act as the leader and overwrite each other's state.
 */
export class StateLockedError extends TinyError {
  /**
   * @param stateFile the state file, as shown to the user.
   * @param pid the process holding the lock.
   * @param lockFile the lock file, as shown to the user.
   */
  constructor(
    readonly stateFile: string,
    readonly pid: number,
    readonly lockFile: string,
  ) {
    super(
      "STATE_LOCKED",
      `state file ${stateFile} is in use by another tinyhost (pid ${pid}): stop it, or give this one its own state with --state <file> (if pid ${pid} is not tinyhost, delete ${lockFile})`,
    );
  }
}

/**
 * A hop to a node no manifest declares. code `"NODE_NOT_DECLARED"`. Local mode knows every node, so
 * such a hop fails at once instead of waiting for the node to appear (runtime-spec §3.2 waits).
 */
export class UndeclaredNodeError extends TinyError {
  /**
   * @param node the destination node.
   * @param port the destination port.
   */
  constructor(
    readonly node: string,
    readonly port: string,
  ) {
    super("NODE_NOT_DECLARED", `no node ${node} is declared in the manifests (hop to ${node}:${port})`);
  }
}

/**
 * A hop to a port the running destination node does not declare, while no reconcile is pending
 * (ports change only on reconcile). code `"PORT_NOT_DECLARED"`; like {@link UndeclaredNodeError} it
 * fails at once instead of waiting for the port (runtime-spec §3.2).
 */
export class UndeclaredPortError extends TinyError {
  /**
   * @param node the destination node.
   * @param component its component.
   * @param port the missing port.
   * @param known the ports it declares.
   */
  constructor(
    readonly node: string,
    component: string,
    readonly port: string,
    known: readonly string[],
  ) {
    super("PORT_NOT_DECLARED", `${component} node ${node} has no port ${JSON.stringify(port)} (its ports: ${known.join(", ") || "none"})`);
  }
}
