/**
 * The names a human reads for nodes. A TinyNode's name is `<md5[:8]>.<module>.<component>-<5 hex>`
 * (runtime-spec §1.9): "Up" and "Down" differ only in five hex digits at the end. The editor's
 * label (annotation `tinysystems.io/node-label`, components.md §6) is what the developer typed, so
 * the terminal and the console show it:
 * - a node with a label unique in the flow set shows `"<label>"`;
 * - a label shared by several nodes shows `"<label>" (<component>-<sfx>)`, the name's last segment;
 * - a node without a label shows its full name (what `kubectl get tinynodes` shows).
 */
import { NODE_LABEL_ANNOTATION } from "../core/api/constants.ts";

/** What {@link displayNames} reads of a node. */
export interface NamedNode {
  metadata: { name?: string; annotations?: Record<string, string> };
}

/** The `tinysystems.io/node-label` annotation of `node`, trimmed; undefined when absent or blank. */
export function nodeLabel(node: NamedNode): string | undefined {
  const label = node.metadata.annotations?.[NODE_LABEL_ANNOTATION]?.trim();
  return label ? label : undefined;
}

/** The last dot segment of a node name (`counter-f5e37`), or the whole name when it has none. */
export function shortName(name: string): string {
  return name.slice(name.lastIndexOf(".") + 1);
}

/**
 * The display name of every node in `nodes` by node name (see the module comment). Labels are
 * compared as written, so "Up" and "up" are different labels.
 */
export function displayNames(nodes: Iterable<NamedNode>): Map<string, string> {
  const list = [...nodes].filter((n) => n.metadata.name);
  const uses = new Map<string, number>();
  for (const n of list) {
    const label = nodeLabel(n);
    if (label !== undefined) uses.set(label, (uses.get(label) ?? 0) + 1);
  }
  const out = new Map<string, string>();
  for (const n of list) {
    const name = n.metadata.name!;
    const label = nodeLabel(n);
    if (label === undefined) out.set(name, name);
    else out.set(name, uses.get(label)! > 1 ? `${JSON.stringify(label)} (${shortName(name)})` : JSON.stringify(label));
  }
  return out;
}

/**
 * Replaces every node name of `names` that occurs in a text by its display name: the terminal's
 * lines are built from runtime messages that name nodes (`node <name> port in: …`), and this is the
 * one place they become readable. A name is replaced only as a whole token (not inside a longer
 * name, a path or a word).
 */
export class NameRewriter {
  #names = new Map<string, string>();
  #pattern: RegExp | undefined;

  /** Sets the names to rewrite (node name → display name); names that display as themselves are skipped. */
  set(names: ReadonlyMap<string, string>): void {
    this.#names = new Map([...names].filter(([name, shown]) => name !== shown));
    // Longest first, so a name that is a prefix of another never takes its place.
    const alternatives = [...this.#names.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
    this.#pattern = alternatives.length ? new RegExp(`(?<![\\w.-])(?:${alternatives.join("|")})(?![\\w-]|\\.\\w)`, "g") : undefined;
  }

  /** The display name of node `name` (the name itself when it has none). */
  name(name: string): string {
    return this.#names.get(name) ?? name;
  }

  /**
   * `text` with every known node name replaced by its display name. Inside a quoted string (the
   * name right after a `"`, e.g. `(from "<name>:out")`) the label goes in without its own quotes,
   * so the line does not read `""Shout":out"`.
   */
  rewrite(text: string): string {
    if (!this.#pattern) return text;
    return text.replace(this.#pattern, (name: string, at: number) => {
      const shown = this.#names.get(name) ?? name;
      return text[at - 1] === '"' ? unquoted(shown) : shown;
    });
  }
}

/** `"Up" (debug-1)` → `Up (debug-1)`; a display name without a quoted label is returned as is. */
function unquoted(shown: string): string {
  const m = /^("(?:[^"\\]|\\.)*")(.*)$/.exec(shown);
  if (!m) return shown;
  try {
    return (JSON.parse(m[1]!) as string) + m[2]!;
  } catch {
    return shown;
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
