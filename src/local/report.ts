/**
 * The concise, human log of local mode: one line per event worth a developer's attention (what
 * runs, its status, URLs, manifest and component errors). Repeated identical lines are suppressed:
 * a node's status is printed when it changes, a manifest error when it first appears.
 */
import { decodeBase64Json } from "../k8s/api/bytes.ts";
import type { TinyNodeStatusLike } from "../sdk/node.ts";

/** Longest JSON excerpt printed for a debug node, characters. */
export const EXCERPT_CHARS = 240;

function excerpt(value: unknown): string {
  const text = JSON.stringify(value) ?? "null";
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
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

/** Prints local-mode events through `out` (one line per call). */
export class LocalReport {
  readonly #lastStatus = new Map<string, string>();
  readonly #lastControl = new Map<string, string>();
  #errors = new Set<string>();

  /** @param out receives each line (default `console.log`). */
  constructor(readonly out: (line: string) => void = (line) => console.log(line)) {}

  /** A free-form line. */
  line(text: string): void {
    this.out(text);
  }

  /**
   * The current manifest and component problems: prints those not printed since they last
   * appeared, and one line when all are gone.
   */
  problems(messages: readonly string[]): void {
    const now = new Set(messages);
    for (const m of now) if (!this.#errors.has(m)) this.out(`error: ${m}`);
    if (now.size === 0 && this.#errors.size > 0) this.out("manifests: all errors fixed");
    this.#errors = now;
  }

  /** A node's status: printed when `status`/`error` changed since the last line for this node. */
  nodeStatus(name: string, component: string, status: TinyNodeStatusLike): void {
    const text = status.error ? `error: ${status.status ?? ""}` : (status.status ?? "OK");
    const key = `${component}\u0000${text}`;
    if (this.#lastStatus.get(name) === key) return;
    this.#lastStatus.set(name, key);
    this.out(`node ${name}  ${component}  ${text}`);
  }

  /** A node was deleted. */
  nodeRemoved(name: string, component: string): void {
    this.#lastStatus.delete(name);
    this.#lastControl.delete(name);
    this.out(`node ${name}  ${component}  removed`);
  }

  /** A debug node's `_control` value (its last message), printed when it changed. */
  debugValue(name: string, status: TinyNodeStatusLike): void {
    const value = controlValue(status);
    if (value === undefined) return;
    const text = excerpt(value);
    if (this.#lastControl.get(name) === text) return;
    this.#lastControl.set(name, text);
    this.out(`debug ${name}: ${text}`);
  }
}
