/**
 * The fast path of the manifest loader (./manifests.ts): plain block-style manifests — what
 * `tinyhost new flow`, the examples and `kubectl get -o yaml` write — parsed by Bun's native YAML
 * parser (Bun.YAML, YAML 1.2 core schema like the `yaml` package's default) with the few line
 * numbers the loader reports on a good file found by a line scan: where each document starts and
 * where each `spec.edges[i]` is. It is far faster than the `yaml` package on a cold process, whose
 * parse is most of local mode's start → /readyz (bench/RESULTS.md "Manifest fast path").
 *
 * Anything it is not sure to read exactly as the `yaml` package does returns `undefined`, and the
 * loader parses the file with the `yaml` package instead: anchors and aliases (alias bombs are
 * counted there), tags, merge keys, directives, `...` markers, content on a `---` line, tabs in
 * indentation, a syntax error, a document that is not a mapping, a duplicate mapping key (Bun keeps
 * the last, the `yaml` package refuses the file — the scan finds them, {@link hasDuplicateKey}), a
 * quoted or flow value that goes on past its line (the scan reads one line at a time), and a path
 * whose line the scan cannot tell ({@link FastPathBail}).
 */

/** One document as the fast path read it. */
export interface FastDocument {
  /** The parsed value (a mapping: anything else is left to the `yaml` package). */
  raw: Record<string, unknown>;
  /** 1-based line of the document's first content line. */
  line: number;
  /**
   * 1-based line of `spec.edges[i]` for every i below `count`.
   * @throws FastPathBail when the scan cannot tell (flow style, an item on its own line, a count
   *   that does not match).
   */
  edgeLines(count: number): number[];
}

/** Thrown when the fast path cannot give a line the loader needs; the loader then uses the `yaml` package. */
export class FastPathBail extends Error {
  constructor(why: string) {
    super(`manifest fast path: ${why}`);
    this.name = "FastPathBail";
  }
}

/** Text the fast path leaves to the `yaml` package (see the module comment). */
const UNSURE = /(^|[\s[{,])[&*!][^\s]|<<\s*:|^%|^\.\.\.(\s|$)|^---[ \t]*[^\s#]|^\t|^ *\t/m;

const isContent = (l: string) => {
  const t = l.trimStart();
  return t !== "" && !t.startsWith("#");
};
const indentOf = (l: string) => l.length - l.trimStart().length;

/**
 * Splits and parses `text`, or returns undefined when the `yaml` package must do it (see the
 * module comment). Blank lines and comments alone (before the first `---`, or between two, or
 * after a trailing one) are no document, as for the `yaml` package path and kubectl.
 */
export function fastDocuments(text: string): FastDocument[] | undefined {
  if (UNSURE.test(text)) return undefined;
  const lines = text.split(/\r?\n/);
  if (hasDuplicateKey(lines)) return undefined;
  const docs: FastDocument[] = [];
  let start = 0;
  for (let i = 0; i <= lines.length; i++) {
    if (i < lines.length && !/^---(\s|$)/.test(lines[i]!)) continue;
    const chunk = lines.slice(start, i);
    const first = chunk.findIndex(isContent);
    // An empty document (blank lines and comments only, e.g. after a trailing `---`) is skipped,
    // as the `yaml` package path and kubectl skip it.
    if (first >= 0) {
      let raw: unknown;
      try {
        raw = Bun.YAML.parse(chunk.join("\n"));
      } catch {
        return undefined;
      }
      if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return undefined;
      docs.push(document(raw as Record<string, unknown>, chunk, start + 1, start + first + 1));
    }
    start = i + 1;
  }
  return docs;
}

function document(raw: Record<string, unknown>, chunk: string[], firstLine: number, line: number): FastDocument {
  return {
    raw,
    line,
    edgeLines(count) {
      if (count === 0) return [];
      const at = scanEdges(chunk);
      if (at.length !== count) throw new FastPathBail(`found ${at.length} spec.edges items, the document has ${count}`);
      return at.map((i) => firstLine + i);
    },
  };
}

/** 0-based indexes in `chunk` of the block-sequence items of the top-level `spec:` → `edges:`. */
function scanEdges(chunk: string[]): number[] {
  const spec = chunk.findIndex((l) => /^spec:\s*(#.*)?$/.test(l));
  if (spec < 0) throw new FastPathBail("no block-style spec: line");
  const firstChild = chunk.findIndex((l, i) => i > spec && isContent(l));
  if (firstChild < 0) throw new FastPathBail("spec has no block content");
  const childIndent = indentOf(chunk[firstChild]!);
  let edges = -1;
  for (let i = firstChild; i < chunk.length; i++) {
    const l = chunk[i]!;
    if (!isContent(l)) continue;
    const ind = indentOf(l);
    if (ind < childIndent) break;
    if (ind === childIndent && /^\s*edges:\s*(#.*)?$/.test(l)) {
      edges = i;
      break;
    }
  }
  if (edges < 0) throw new FastPathBail("no block-style spec.edges: line");
  const firstItem = chunk.findIndex((l, i) => i > edges && isContent(l));
  if (firstItem < 0) throw new FastPathBail("spec.edges has no block items");
  const itemIndent = indentOf(chunk[firstItem]!);
  if (itemIndent < childIndent) throw new FastPathBail("spec.edges has no block items");
  const items: number[] = [];
  for (let i = firstItem; i < chunk.length; i++) {
    const l = chunk[i]!;
    if (!isContent(l)) continue;
    const ind = indentOf(l);
    if (ind < itemIndent) break;
    if (ind > itemIndent) continue;
    if (/^\s*- \S/.test(l)) items.push(i);
    else if (/^\s*-\s*$/.test(l)) throw new FastPathBail("a spec.edges item starts on its own line");
    else break; // the next key of spec (items at spec's own indentation)
  }
  return items;
}

/** A block-mapping key at the start of a line (after an optional `- `): plain, or quoted on one line. */
const KEY = /^(- +)?("[^"]*"|'[^']*'|[^\s"'#[{\-?][^:#]*?|-[^\s:#][^:#]*?)\s*:(\s|$)(.*)$/;

/**
 * True when a block mapping of the text has a key twice, or when the scan is unsure: a quoted or
 * flow value that does not end on its line. Block scalars (`|`, `>`) are skipped by indentation;
 * `---` starts over.
 */
export function hasDuplicateKey(lines: readonly string[]): boolean {
  let scopes: { indent: number; keys: Set<string> }[] = [];
  let scalarAbove = -1; // indent of the key whose block scalar is being skipped
  for (const l of lines) {
    if (/^---(\s|$)/.test(l)) {
      scopes = [];
      scalarAbove = -1;
      continue;
    }
    if (!isContent(l)) continue;
    let indent = indentOf(l);
    if (scalarAbove >= 0) {
      if (indent > scalarAbove) continue;
      scalarAbove = -1;
    }
    let rest = l.slice(indent);
    // Each `- ` opens a fresh mapping for the item, indented past the dash.
    while (/^- +/.test(rest)) {
      const dash = /^- +/.exec(rest)![0].length;
      indent += dash;
      rest = rest.slice(dash);
      scopes = scopes.filter((s) => s.indent < indent);
      scopes.push({ indent, keys: new Set() });
    }
    const m = KEY.exec(rest);
    const value = (m ? m[4]! : rest).replace(/\s+#.*$/, "").trim();
    if (/^["']/.test(value) && (value.length < 2 || value.at(-1) !== value[0])) return true;
    if ((value.startsWith("[") && !value.endsWith("]")) || (value.startsWith("{") && !value.endsWith("}"))) return true;
    if (!m) continue; // a sequence scalar or a plain scalar's next line
    scopes = scopes.filter((s) => s.indent <= indent);
    let scope = scopes.at(-1);
    if (!scope || scope.indent !== indent) scopes.push((scope = { indent, keys: new Set() }));
    const key = m[2]!.replace(/^(["'])(.*)\1$/, "$2");
    if (scope.keys.has(key)) return true;
    scope.keys.add(key);
    if (/^[|>][-+0-9]*$/.test(value)) scalarAbove = indent;
  }
  return false;
}
