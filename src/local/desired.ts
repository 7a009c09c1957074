/**
 * The desired set of TinyNodes from a directory of manifests: the files merged into one set, with
 * the diagnostics that need more than one file (duplicate names). What changed is decided by the
 * in-memory API when the set is applied (./directory-source.ts).
 *
 * Like an API server that refuses a bad `kubectl apply`, a file that no longer parses, or a node
 * document that no longer validates, leaves the last good version of its nodes in place.
 */
import type { TinyFlow, TinyNode, TinyProject } from "../core/api/v1alpha1.ts";
import { ManifestError } from "./errors.ts";
import type { FileManifests, NamedManifest, NodeManifest, TinyComponentManifest } from "./manifests.ts";

/** Everything the manifests declare, after merging files. */
export interface DesiredSet {
  /** TinyNodes by name. */
  nodes: Map<string, NodeManifest>;
  /** TinyProjects in file order. */
  projects: NamedManifest<TinyProject>[];
  /** TinyFlows in file order. */
  flows: NamedManifest<TinyFlow>[];
  /** TinyComponents by name (the first declaration wins; a file that stops parsing keeps its previous ones). */
  components: Map<string, NamedManifest<TinyComponentManifest>>;
  /** Every problem found (syntax, invalid documents, duplicate names). */
  errors: ManifestError[];
  /** Skipped documents. */
  notes: string[];
}

/**
 * Merges per-file results into one set. Rules: files in the given order; the first declaration of
 * a node name wins and later ones are `DUPLICATE_NODE` errors naming both places; a file with a YAML syntax error keeps
 * every node it declared in `previous`; a rejected node document keeps its `previous` version
 * when that came from the same file.
 * @param files results of `parseManifestFile`, sorted by file name.
 * @param previous the last desired nodes (empty on the first read).
 */
export function collectDesired(
  files: readonly FileManifests[],
  previous: ReadonlyMap<string, NodeManifest>,
  previousComponents: ReadonlyMap<string, NamedManifest<TinyComponentManifest>> = new Map(),
): DesiredSet {
  const out: DesiredSet = { nodes: new Map(), projects: [], flows: [], components: new Map(), errors: [], notes: [] };
  const addComponent = (c: NamedManifest<TinyComponentManifest>) => {
    const name = c.object.metadata.name;
    const seen = out.components.get(name);
    if (seen)
      out.errors.push(
        new ManifestError(
          "DUPLICATE_NODE",
          c.file,
          c.line,
          "",
          `TinyComponent ${name} is declared at ${seen.file}:${seen.line} too; the first is used and this one is ignored — remove one`,
        ),
      );
    else out.components.set(name, c);
  };
  const add = (entry: NodeManifest) => {
    const name = entry.node.metadata.name;
    const seen = out.nodes.get(name);
    if (seen) {
      out.errors.push(new ManifestError("DUPLICATE_NODE", entry.file, entry.line, name, duplicateText(seen, entry)));
      return;
    }
    out.nodes.set(name, entry);
  };
  for (const f of files) {
    out.errors.push(...f.errors);
    out.notes.push(...f.notes);
    out.projects.push(...f.projects);
    out.flows.push(...f.flows);
    if (f.syntaxError) {
      for (const entry of previous.values()) if (entry.file === f.file) add(entry);
      for (const c of previousComponents.values()) if (c.file === f.file) addComponent(c);
      continue;
    }
    for (const entry of f.nodes) add(entry);
    for (const c of f.components) addComponent(c);
    for (const name of f.rejectedNodes) {
      const prev = previous.get(name);
      if (prev && prev.file === f.file && !out.nodes.has(name)) add(prev);
    }
  }
  return out;
}

/**
 * The message for a node name declared twice: names both places, which one runs and why (files are
 * read in name order and the first declaration wins, so the choice is the same on every start).
 */
function duplicateText(used: NodeManifest, ignored: NodeManifest): string {
  if (used.file === ignored.file) {
    return `declared twice in ${used.file}, at lines ${used.line} and ${ignored.line}; the first (line ${used.line}) is used and this one is ignored — remove one`;
  }
  return (
    `declared in two files: ${used.file}:${used.line} and ${ignored.file}:${ignored.line}; the one in ${used.file} is used ` +
    `(files are read in name order and the first declaration wins), this one is ignored — remove one`
  );
}
