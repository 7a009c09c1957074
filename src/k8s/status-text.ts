/**
 * The bound on `TinyNode.status.status`, the free-text field where a node's error shows.
 *
 * Why: the text is an error message, and a component can throw one of any size. A 2 MB message made
 * the status write fail (`etcdserver: request is too large`, etcd's 1.5 MiB request limit), so the
 * fault it carried never showed and the reconcile retried it — with the whole text in each log
 * line — forever. The Go runtime writes the message as it is; we cut it (docs/compatibility.md,
 * "Component faults"). 4,096 characters keep a status readable on the dashboard and small at 10,000
 * nodes; Kubernetes' own `Condition.message` allows 32,768.
 */

import { maskSecretValues } from "../telemetry/secret-values.ts";

/** Most characters (UTF-16 code units) of a status text or a logged error text. */
export const STATUS_TEXT_MAX = 4_096;

/**
 * `text` when it fits {@link STATUS_TEXT_MAX}, else its start and a note saying how much was cut
 * (the result is at most `max` characters and never ends inside a surrogate pair).
 * @param max - the bound in characters; default {@link STATUS_TEXT_MAX}.
 */
export function statusText(text: string, max: number = STATUS_TEXT_MAX): string {
  text = maskSecretValues(text); // a resolved secret never reaches a status (src/telemetry/secret-values.ts)
  if (text.length <= max) return text;
  const note = (cut: number) => `… (${cut} more characters)`;
  let keep = max - note(text.length).length;
  if (keep > 0 && /[\uD800-\uDBFF]/.test(text[keep - 1]!)) keep--; // do not split a surrogate pair
  return text.slice(0, Math.max(0, keep)) + note(text.length - Math.max(0, keep));
}
