/**
 * Errors of local mode. A manifest error names the file, the line (when known) and the node, so a
 * developer can jump to it; it never stops the other nodes (issue 7: "the other nodes keep running").
 */
import { TinyError } from "../sdk/errors.ts";

/** Why a manifest was refused. */
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
  | "READ_FAILED";

/**
 * A problem with one manifest document. `message` reads `<file>:<line>: node <name>: <what>`
 * (line and node only when known).
 */
export class ManifestError extends TinyError {
  /**
   * @param code what kind of problem.
   * @param file the manifest file, as given to the loader (relative paths stay relative).
   * @param line 1-based line of the offending document or field; 0 when unknown.
   * @param node the TinyNode name, or `""` when the document has none (or is not a node).
   * @param detail the problem, naming the field and value.
   */
  constructor(
    code: ManifestErrorCode,
    readonly file: string,
    readonly line: number,
    readonly node: string,
    readonly detail: string,
  ) {
    super(code, `${file}${line > 0 ? `:${line}` : ""}: ${node ? `node ${node}: ` : ""}${detail}`);
  }
}

/** Local mode could not start (bad directory, no components directory, bad flag value). code `"LOCAL_START"`. */
export class LocalStartError extends TinyError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("LOCAL_START", message, options);
  }
}
