/**
 * The concise, human log of local mode: one line per event worth a developer's attention (what
 * runs, its status, URLs, manifest and component errors). Repeated identical lines are suppressed:
 * a node's status is printed when it changes, a problem when it first appears, and its fix once
 * the reconciles it caused are done — so "fixed" is never printed just before a new error. Every
 * line names nodes by their display names ({@link LocalReport.names}, src/local/node-names.ts).
 */
import { decodeBase64Json } from "../core/api/bytes.ts";
import type { TinyNodeStatus as TinyNodeStatusLike } from "../core/node.ts";
import { NameRewriter } from "./node-names.ts";

function statusKey(component: string, status: TinyNodeStatusLike): string {
  return `${component}\u0000${status.error ? "error" : "ok"}\u0000${status.status ?? ""}`;
}

/** Value of the `_control` port in a status (decoded), or undefined. */
export function controlValue(status: TinyNodeStatusLike | undefined): unknown {
  const port = status?.ports?.find((p) => p.name === "_control");
  if (!port) return undefined;
  try {
    return decodeBase64Json(port.configuration, "status.ports[_control].configuration");
  } catch {
    return undefined;
  }
}

/** A current manifest, edge or component problem. */
export interface Problem {
  /** `warning` (the node runs as declared) or `error`. */
  level: "error" | "warning";
  /** The message, naming file, line and node where known. */
  text: string;
  /** The node it is about, if any (a node in error that has a problem is counted once). */
  node?: string;
  /**
   * Identity across reads (default `text`); local mode leaves the line number out, so a problem
   * that only moved (a line added above it) is not printed again and announced as fixed.
   */
  key?: string;
  /**
   * Where it comes from when one place has one problem at a time (a component file, a file's YAML
   * syntax): a new problem from the same place replaces the old one, which is then not announced
   * as fixed — an edit that changes a file's error prints the new error only.
   */
  source?: string;
}

/** Prints local-mode events through `out` (one line per call). */
export class LocalReport {
  /** The display names every line is written with (set from the manifests by the host). */
  readonly names = new NameRewriter();
  readonly #lastStatus = new Map<string, string>();
  #problems = new Map<string, Problem>();
  /** Problems gone since the last {@link settle}, to be announced as fixed then. */
  readonly #fixed = new Map<string, Problem>();

  /** @param out receives each line (default `console.log`). */
  constructor(readonly out: (line: string) => void = (line) => console.log(line)) {}

  /** A free-form line. */
  line(text: string): void {
    this.#print(text);
  }

  /** Writes `text` with node names replaced by their display names. */
  #print(text: string): void {
    this.out(this.names.rewrite(text));
  }

  /**
   * The current manifest, edge and component problems: prints `<level>: <text>` for those not
   * printed since they last appeared; the ones gone are announced by the next {@link settle}.
   */
  problems(list: readonly Problem[]): void {
    const now = new Map<string, Problem>(list.map((p) => [`${p.level}\u0000${p.key ?? p.text}`, p]));
    for (const [key, p] of this.#problems) if (!now.has(key)) this.#fixed.set(key, p);
    for (const [key, p] of now) {
      if (this.#problems.has(key)) continue;
      if (this.#fixed.delete(key)) continue; // back before its fix was announced: nothing changed
      this.#print(`${p.level}: ${p.text}`);
      if (p.source !== undefined) for (const [k, f] of this.#fixed) if (f.source === p.source) this.#fixed.delete(k); // replaced, not fixed
    }
    this.#problems = now;
  }

  /**
   * Announces the problems fixed since the last call, one `fixed: <text>` line each, the last one
   * saying how many problems are left (the current problems plus nodes in error not covered by
   * one). Call it when the reconciles are done, so a fix that uncovers a new error is not
   * reported as "no problems left".
   * @param nodesInError names of the running nodes whose status is an error.
   */
  settle(nodesInError: readonly string[]): void {
    if (this.#fixed.size === 0) return;
    const covered = new Set([...this.#problems.values()].map((p) => p.node).filter((n) => n !== undefined));
    const left = this.#problems.size + nodesInError.filter((n) => !covered.has(n)).length;
    const fixed = [...this.#fixed.values()];
    this.#fixed.clear();
    fixed.forEach((p, i) => {
      const tail = i < fixed.length - 1 ? "" : left === 0 ? " (no problems left)" : ` (${left} problem${left === 1 ? "" : "s"} left)`;
      this.#print(`fixed: ${p.text}${tail}`);
    });
  }

  /**
   * A node's status: printed when `status`/`error` changed since the last line for this node, as
   * `node <name>  <component>  OK`, or `… error: <where>: <status>` naming the node's manifest.
   * @param where `<file>:<line>` of the node's document, for error lines.
   */
  nodeStatus(name: string, component: string, status: TinyNodeStatusLike, where?: string): void {
    const key = statusKey(component, status);
    if (this.#lastStatus.get(name) === key) return;
    this.#lastStatus.set(name, key);
    const raw = status.status ?? "";
    // Runtime errors often start "node <name> port …": the line names the node already.
    const detail = raw.startsWith(`node ${name}: `)
      ? raw.slice(`node ${name}: `.length)
      : raw.startsWith(`node ${name} `)
        ? raw.slice(`node ${name} `.length)
        : raw;
    const text = status.error ? `error: ${where ? `${where}: ` : ""}${detail}` : (status.status ?? "OK");
    this.#print(`node ${name}  ${component}  ${text}`);
  }

  /**
   * A node's new error status explained by `text` instead of its raw status: prints
   * `node <name>  <component>  error: <text>` now, and {@link nodeStatus} stays quiet for `status`.
   */
  nodeError(name: string, component: string, status: TinyNodeStatusLike, text: string): void {
    this.#lastStatus.set(name, statusKey(component, status));
    this.#print(`node ${name}  ${component}  error: ${text}`);
  }

  /**
   * Records `status` as shown for `name` without printing: the event was already printed in
   * another form (an unknown component is a listed problem), so its status line would repeat it.
   */
  statusShown(name: string, component: string, status: TinyNodeStatusLike): void {
    this.#lastStatus.set(name, statusKey(component, status));
  }

  /** A node was deleted. */
  nodeRemoved(name: string, component: string): void {
    this.#lastStatus.delete(name);
    this.#print(`node ${name}  ${component}  removed`);
  }
}
