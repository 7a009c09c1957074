/**
 * Reads TinyProject/TinyFlow/TinyNode manifests from multi-document YAML files, the way
 * `kubectl apply -f <dir>` would see them, and checks each TinyNode against the CRD's required
 * fields (runtime-spec §8; components.md §6). A bad document is reported with its file, line and
 * node name and skipped; the other documents of the file still load. Problems that need no hop are
 * reported here too, on nodes that still load: an `{{expression}}` in a port configuration that
 * does not parse (src/local/port-expressions.ts), a `spec.module` that differs from the name's
 * module segment (a warning).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Document, LineCounter } from "yaml";
import { API_VERSION, KIND, type TinyComponentSpec, type TinyFlow, type TinyNode, type TinyProject } from "../core/api/v1alpha1.ts";
import { decodeBase64Json } from "../core/api/bytes.ts";
import { parseFullName, sanitizeResourceName } from "../core/api/naming.ts";
import { parsePortAddress } from "../core/hop.ts";
import { ManifestError } from "./errors.ts";
import { fastDocuments, FastPathBail } from "./manifest-fast.ts";
import { portExpressionProblems } from "./port-expressions.ts";
import { retryPolicyProblem } from "./retry-policy-check.ts";
import { isPlainObject } from "../core/plain-object.ts";

/**
 * Most alias expansions one document may make, counted as the `yaml` package counts them; more is
 * refused as an alias bomb ("billion laughs", YAML 1.2 §3.2.2.2 aliases) with a YAML_SYNTAX error.
 */
export const MAX_ALIAS_COUNT = 100;

/** File names the loader reads: `*.yaml` and `*.yml`, not hidden (kubectl's extensions). */
export function isManifestFile(name: string): boolean {
  return !name.startsWith(".") && (name.endsWith(".yaml") || name.endsWith(".yml"));
}

/** One TinyNode and where it was declared. */
export interface NodeManifest {
  /** The node as written (apiVersion, kind, metadata, spec; any `status` is dropped). */
  node: TinyNode;
  /** File it came from. */
  file: string;
  /** 1-based line where its document starts. */
  line: number;
  /** 1-based line of each `spec.edges[i]` (same order as the spec; absent for nodes built in code). */
  edgeLines?: readonly number[];
}

/** A TinyComponent as written (its status is the local controller's). */
export interface TinyComponentManifest {
  apiVersion: string;
  kind: "TinyComponent";
  metadata: { name: string; namespace?: string; [k: string]: unknown };
  spec: TinyComponentSpec;
}

/** A TinyProject, TinyFlow or TinyComponent and where it was declared. */
export interface NamedManifest<T> {
  object: T;
  file: string;
  line: number;
}

/** What one file holds. */
export interface FileManifests {
  /** The file, as passed to {@link parseManifestFile}. */
  file: string;
  /** Valid TinyNodes in document order. */
  nodes: NodeManifest[];
  /** TinyProjects. */
  projects: NamedManifest<TinyProject>[];
  /** TinyFlows. */
  flows: NamedManifest<TinyFlow>[];
  /** TinyComponents (scripts run as components, ./tiny-components.ts). */
  components: NamedManifest<TinyComponentManifest>[];
  /**
   * Problems found; each names the file (and line/node when known). Most reject their document;
   * `EXPRESSION_SYNTAX` and `MODULE_MISMATCH` flag a node that still loads.
   */
  errors: ManifestError[];
  /** Documents skipped on purpose (other kinds), one line each. */
  notes: string[];
  /** True when the YAML itself did not parse: nothing in the file is trustworthy. */
  syntaxError: boolean;
  /** Names of TinyNode documents that were rejected (their last good version may be kept). */
  rejectedNodes: string[];
}

type Path = readonly (string | number)[];

/** Checks one TinyNode document; the first problem comes back naming the field and value, with its path. */
function checkNode(raw: Record<string, unknown>): { node: TinyNode } | { problem: string; path: Path } {
  const bad = (path: Path, problem: string) => ({ problem, path });
  const meta = raw.metadata as Record<string, unknown> | undefined;
  if (!isPlainObject(meta))
    return bad(
      raw.metadata === undefined ? [] : ["metadata"],
      `a TinyNode needs metadata.name (<flow-prefix>.<module>.<component>-<suffix>), got ${raw.metadata === undefined ? "no metadata" : `metadata ${JSON.stringify(raw.metadata)}`}`,
    );
  const name = meta.name;
  if (typeof name !== "string" || name === "")
    return bad(
      name === undefined ? ["metadata"] : ["metadata", "name"],
      `a TinyNode needs metadata.name (<flow-prefix>.<module>.<component>-<suffix>), got ${name === undefined ? "none" : JSON.stringify(name)}`,
    );
  try {
    parseFullName(name as string);
  } catch (err) {
    return bad(["metadata", "name"], (err as Error).message);
  }
  if (meta!.labels !== undefined && !isStringMap(meta!.labels)) return bad(["metadata", "labels"], "metadata.labels must map strings to strings");
  if (meta!.annotations !== undefined && !isStringMap(meta!.annotations))
    return bad(["metadata", "annotations"], "metadata.annotations must map strings to strings");
  const spec = raw.spec as Record<string, unknown> | undefined;
  if (!isPlainObject(spec)) return bad(["spec"], "spec is required (module, component)");
  for (const key of ["module", "component"] as const) {
    if (typeof spec[key] !== "string" || spec[key] === "")
      return bad(["spec", key], `spec.${key} must be a non-empty string, got ${JSON.stringify(spec[key] ?? null)}`);
  }
  const ports = spec.ports ?? [];
  if (!Array.isArray(ports)) return bad(["spec", "ports"], "spec.ports must be a list");
  for (let i = 0; i < ports.length; i++) {
    const p = ports[i] as Record<string, unknown>;
    const at = `spec.ports[${i}]`;
    if (!isPlainObject(p)) return bad(["spec", "ports", i], `${at} must be a mapping`);
    if (typeof p.port !== "string" || p.port === "")
      return bad(["spec", "ports", i, "port"], `${at}.port must be a non-empty string, got ${JSON.stringify(p.port ?? null)}`);
    if (p.from !== undefined && p.from !== "" && (typeof p.from !== "string" || parsePortAddress(p.from)[0] === "")) {
      return bad(["spec", "ports", i, "from"], `${at}.from must be "<node>:<port>", got ${JSON.stringify(p.from)}`);
    }
    for (const f of ["configuration", "schema"] as const) {
      try {
        decodeBase64Json(p[f] as string | undefined, `${at}.${f}`);
      } catch (err) {
        return bad(["spec", "ports", i, f], (err as Error).message);
      }
    }
  }
  const edges = spec.edges ?? [];
  if (!Array.isArray(edges)) return bad(["spec", "edges"], "spec.edges must be a list");
  for (let i = 0; i < edges.length; i++) {
    const e = edges[i] as Record<string, unknown>;
    const at = `spec.edges[${i}]`;
    if (!isPlainObject(e)) return bad(["spec", "edges", i], `${at} must be a mapping`);
    for (const f of ["id", "port", "to"] as const) {
      if (typeof e[f] !== "string" || e[f] === "")
        return bad(["spec", "edges", i, f], `${at}.${f} must be a non-empty string, got ${JSON.stringify(e[f] ?? null)}`);
    }
    const [toNode, toPort] = parsePortAddress(e.to as string);
    if (toNode === "" || toPort === "") return bad(["spec", "edges", i, "to"], `${at}.to must be "<node>:<port>", got ${JSON.stringify(e.to)}`);
    const policy = retryPolicyProblem(e.retryPolicy, at);
    if (policy) return bad(["spec", "edges", i, "retryPolicy", ...(policy.field ? [policy.field] : [])], policy.problem);
  }
  const node: TinyNode = {
    apiVersion: API_VERSION,
    kind: KIND.TinyNode,
    metadata: structuredClone(meta as unknown as TinyNode["metadata"]), // the name was checked above
    spec: structuredClone(spec) as unknown as TinyNode["spec"],
  };
  return { node };
}

function isStringMap(x: unknown): x is Record<string, string> {
  return isPlainObject(x) && Object.values(x).every((v) => typeof v === "string");
}

/** 1-based line of the value at `path` in `doc`, or of the document itself when the path is absent. */
function lineOf(doc: Document, counter: LineCounter, path: Path): number {
  for (let depth = path.length; depth >= 0; depth--) {
    const n = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
    const range = (n as { range?: [number, number, number] } | undefined)?.range;
    if (range) return counter.linePos(range[0]).line;
  }
  return 1;
}

/**
 * The `yaml` package's error message as one line: its first line without the trailing
 * ` at line L, column C:` (the position goes into the `file:line:column` prefix) and, instead of the
 * multi-line code frame it ends with, the offending source line quoted.
 * @param message the package's message (first line, then a code frame).
 * @param text the file's contents.
 * @param line 1-based line of the error (0 when unknown).
 */
export function yamlErrorText(message: string, text: string, line: number): string {
  const reason = message
    .split("\n")[0]!
    .replace(/ at line \d+, column \d+:?$/, "")
    .replace(/:$/, "");
  if (line <= 0) return reason;
  const lines = text.split(/\r?\n/);
  const quote = (s: string) => JSON.stringify(s.trim().length > 80 ? `${s.trim().slice(0, 80)}…` : s.trim());
  const at = lines[line - 1];
  if (at !== undefined && at.trim() !== "") return `${reason}: ${quote(at)}`;
  let before = Math.min(line - 1, lines.length) - 1;
  while (before >= 0 && lines[before]!.trim() === "") before--;
  const atEnd = lines.slice(line - 1).every((l) => l.trim() === "");
  if (before < 0) return atEnd ? `${reason} (at the end of the file)` : reason;
  return `${reason} (${atEnd ? "at the end of the file, " : ""}after line ${before + 1}: ${quote(lines[before]!)})`;
}

/**
 * How `spec.module` disagrees with the module segment of the node's name, or undefined when they
 * agree. The platform names nodes `<hash>.<sanitized spec.module>.<component>-<suffix>`
 * (runtime-spec §8) and routes by the name's segment, which must equal this module's sanitized
 * name exactly (runtime-spec §16 item 1), so a mismatch means the node runs (or not) by its name.
 */
function moduleMismatch(node: TinyNode): string | undefined {
  const segment = parseFullName(node.metadata.name).module;
  const expected = sanitizeResourceName(node.spec.module);
  if (segment === expected) return undefined;
  return (
    `spec.module ${JSON.stringify(node.spec.module)} does not match the module segment ${JSON.stringify(segment)} of the node's name ` +
    `(a node of module ${JSON.stringify(node.spec.module)} is named <hash>.${expected}.<component>-<suffix>); ownership and routing follow the name, so fix one of them`
  );
}

/**
 * Parses the YAML text of one file into TinyProjects, TinyFlows and TinyNodes.
 * Never throws: problems come back in `errors` (code `YAML_SYNTAX` — also for an alias bomb over
 * {@link MAX_ALIAS_COUNT} — or `MANIFEST_INVALID`).
 * Documents of other kinds or API groups are skipped with a note; empty documents are ignored.
 * @param file the file name used in messages.
 * @param text the file's contents.
 */
export function parseManifestFile(file: string, text: string): FileManifests {
  // Plain block-style files take Bun's native parser; anything else, or a line the fast path
  // cannot give, the `yaml` package (./manifest-fast.ts says when and why).
  const fast = fastDocuments(text);
  if (fast) {
    try {
      return interpret(
        newFileManifests(file),
        fast.map((d) => ({
          raw: d.raw,
          mapping: true,
          list: false,
          line: (path: Path) => {
            if (path.length === 0) return d.line;
            throw new FastPathBail(`no line for ${path.join(".")}`);
          },
          edgeLines: (count: number) => d.edgeLines(count),
        })),
      );
    } catch (err) {
      if (!(err instanceof FastPathBail)) throw err;
    }
  }
  return parseWithYamlPackage(file, text);
}

/** One document for {@link interpret}: its value and where its parts are. */
interface ParsedDocument {
  raw: unknown;
  /** The document is a mapping / a sequence (as the parser saw it). */
  mapping: boolean;
  list: boolean;
  /** 1-based line of the value at `path`, or of the nearest parent present. */
  line(path: Path): number;
  /** Lines of `spec.edges[0 … count-1]`. */
  edgeLines(count: number): number[];
}

function newFileManifests(file: string): FileManifests {
  return { file, nodes: [], projects: [], flows: [], components: [], errors: [], notes: [], syntaxError: false, rejectedNodes: [] };
}

/** Loads `yaml` (220 KB of code) only for the files the fast path leaves to it. */
let yamlPackage: typeof import("yaml") | undefined;
const yaml = (): typeof import("yaml") => (yamlPackage ??= require("yaml") as typeof import("yaml"));

/**
 * {@link parseManifestFile} with the `yaml` package only: exact positions for every path and error.
 * What the fast path falls back to; exported so tests hold both to the same output.
 */
export function parseWithYamlPackage(file: string, text: string): FileManifests {
  const { isMap, isSeq, LineCounter, parseAllDocuments } = yaml();
  const out = newFileManifests(file);
  const counter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: counter });
  if (!Array.isArray(docs)) return out; // an empty stream
  for (const doc of docs) {
    if (doc.errors.length > 0) {
      const e = doc.errors[0]!;
      const line = e.linePos?.[0]?.line ?? 0;
      out.errors.push(new ManifestError("YAML_SYNTAX", file, line, "", yamlErrorText(e.message, text, line), e.linePos?.[0]?.col ?? 0));
      out.syntaxError = true;
    }
  }
  if (out.syntaxError) return out;
  // Convert every document first: an alias bomb ("Excessive alias count") throws from toJS, and it
  // makes the whole file untrustworthy, like a syntax error (the file's last good nodes are kept).
  const values: unknown[] = [];
  for (const doc of docs) {
    try {
      values.push(doc.contents === null ? null : doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }));
    } catch (err) {
      const line = doc.contents === null ? 0 : lineOf(doc, counter, []);
      out.errors.push(new ManifestError("YAML_SYNTAX", file, line, "", (err as Error).message.split("\n")[0]!));
      out.syntaxError = true;
      return out;
    }
  }
  const parsed: ParsedDocument[] = [];
  for (const [i, doc] of docs.entries()) {
    // An empty document (a trailing `---`, comments only) or an explicit `null` is skipped, as
    // kubectl skips it (cli-runtime StreamVisitor: empty or "null" documents are not objects).
    if (doc.contents === null || values[i] === null) continue;
    parsed.push({
      raw: values[i],
      mapping: isMap(doc.contents),
      list: isSeq(doc.contents),
      line: (path) => lineOf(doc, counter, path),
      edgeLines: (count) => Array.from({ length: count }, (_, j) => lineOf(doc, counter, ["spec", "edges", j])),
    });
  }
  return interpret(out, parsed);
}

/** Turns parsed documents into nodes, projects, flows, errors and notes (appended to `out`). */
function interpret(out: FileManifests, docs: readonly ParsedDocument[]): FileManifests {
  const file = out.file;
  for (const doc of docs) {
    const docLine = doc.line([]);
    const raw = doc.raw;
    if (!isPlainObject(raw) || !doc.mapping) {
      out.errors.push(
        new ManifestError(
          "MANIFEST_INVALID",
          file,
          docLine,
          "",
          `a document must be a mapping with apiVersion and kind, got ${doc.list ? "a list" : typeof raw}`,
        ),
      );
      continue;
    }
    const kind = raw.kind;
    const name = isPlainObject(raw.metadata) && typeof raw.metadata.name === "string" ? raw.metadata.name : "";
    if (raw.apiVersion !== API_VERSION) {
      if (typeof kind === "string" && kind.startsWith("Tiny")) {
        out.errors.push(
          new ManifestError(
            "MANIFEST_INVALID",
            file,
            doc.line(["apiVersion"]),
            kind === KIND.TinyNode ? name : "",
            `apiVersion must be ${API_VERSION}, got ${JSON.stringify(raw.apiVersion ?? null)}`,
          ),
        );
        if (kind === KIND.TinyNode && name) out.rejectedNodes.push(name);
      } else {
        out.notes.push(
          `${file}:${docLine}: skipped ${String(kind ?? "a document without kind")} ${name} (local mode runs TinyProject, TinyFlow, TinyNode and TinyComponent)`,
        );
      }
      continue;
    }
    if (kind === KIND.TinyNode) {
      const checked = checkNode(raw);
      if ("problem" in checked) {
        out.errors.push(new ManifestError("MANIFEST_INVALID", file, doc.line(checked.path), name, checked.problem));
        if (name) out.rejectedNodes.push(name);
      } else {
        const edgeLines = doc.edgeLines((checked.node.spec.edges ?? []).length);
        out.nodes.push({ node: checked.node, file, line: docLine, edgeLines });
        for (const p of portExpressionProblems(checked.node.spec.ports)) {
          out.errors.push(new ManifestError("EXPRESSION_SYNTAX", file, doc.line(["spec", "ports", p.index, "configuration"]), name, p.problem));
        }
        const mismatch = moduleMismatch(checked.node);
        if (mismatch) out.errors.push(new ManifestError("MODULE_MISMATCH", file, doc.line(["spec", "module"]), name, mismatch));
      }
    } else if (kind === KIND.TinyComponent) {
      if (name === "" || !isPlainObject(raw.spec)) {
        out.errors.push(new ManifestError("MANIFEST_INVALID", file, docLine, "", `TinyComponent ${name || "(no metadata.name)"} needs metadata.name and spec`));
        continue;
      }
      out.components.push({
        object: { apiVersion: API_VERSION, kind, metadata: { ...(raw.metadata as object), name }, spec: raw.spec } as unknown as TinyComponentManifest,
        file,
        line: docLine,
      });
    } else if (kind === KIND.TinyProject || kind === KIND.TinyFlow) {
      if (name === "") {
        out.errors.push(new ManifestError("MANIFEST_INVALID", file, docLine, "", `${kind} needs metadata.name`));
        continue;
      }
      const entry = { object: raw as unknown, file, line: docLine };
      if (kind === KIND.TinyProject) out.projects.push(entry as NamedManifest<TinyProject>);
      else out.flows.push(entry as NamedManifest<TinyFlow>);
    } else {
      out.notes.push(`${file}:${docLine}: skipped ${String(kind)} ${name} (local mode runs TinyProject, TinyFlow, TinyNode and TinyComponent)`);
    }
  }
  return out;
}

/**
 * Reads every manifest file directly in `dir` (not sub-directories, like `kubectl apply -f <dir>`),
 * sorted by name. A file that cannot be read yields one `READ_FAILED` error.
 * @param dir the directory to read.
 * @param shownAs how `dir` appears in file names of the results and their messages (default `dir`;
 *   local mode passes the path as shown to the user, src/telemetry/shown-path.ts).
 * @throws Error (ENOENT/ENOTDIR) when `dir` itself cannot be listed.
 */
export function readManifestDir(dir: string, shownAs = dir): FileManifests[] {
  const names = readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isFile() && isManifestFile(d.name))
    .map((d) => d.name)
    .sort();
  return names.map((name) => {
    const file = join(shownAs, name);
    let text: string;
    try {
      text = readFileSync(join(dir, name), "utf8");
    } catch (err) {
      const r = parseManifestFile(file, "");
      r.errors.push(new ManifestError("READ_FAILED", file, 0, "", (err as Error).message));
      r.syntaxError = true;
      return r;
    }
    return parseManifestFile(file, text);
  });
}
