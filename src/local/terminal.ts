/**
 * What local mode's terminal says about the nodes — the stand-in for the dashboard: a status line
 * when a node's status changes (naming its manifest on errors), a line when a node that ran is
 * removed, the current problems (manifest errors, unknown components, broken edges, component
 * files) as they appear and "fixed" once the reconciles they caused are done, a note for nodes of
 * other modules and for why nothing runs, and an http_server that cannot bind pinned as its node's
 * status error until its port listens. Lines go through {@link LocalReport}, which prints each
 * thing once.
 */
import type { TinyNode, TinyNodeStatus } from "../core/api/index.ts";
import { nameMatches, parseFullName } from "../core/api/naming.ts";
import type { ComponentFiles } from "./component-files.ts";
import { HTTP_PORT_METADATA_KEY, HTTP_SERVER_COMPONENT } from "./constants.ts";
import type { DesiredSet } from "./desired.ts";
import type { DirectorySource } from "./directory-source.ts";
import { edgeProblems } from "./edge-check.ts";
import { portExpressionProblems } from "./port-expressions.ts";
import { ManifestError } from "./errors.ts";
import type { ListenFailure } from "./listen-watch.ts";
import type { LocalScheduler } from "./local-scheduler.ts";
import type { NodeManifest } from "./manifests.ts";
import type { LocalNodes, NodeChange } from "./node-api.ts";
import { shownPath } from "../telemetry/shown-path.ts";
import type { LocalReport, Problem } from "./report.ts";

/** What {@link LocalTerminal} reads. */
export interface LocalTerminalHost {
  /** The module local mode runs as (unsanitized). */
  module: string;
  /** Absolute manifests directory. */
  dir: string;
  report: LocalReport;
  scheduler: LocalScheduler;
  nodes: LocalNodes;
  source: DirectorySource;
  components: ComponentFiles;
  /** True when this module runs node `name` (the reconciler's ownership rule). */
  owns(name: string): boolean;
  /** Why a node of module `segment` is not run here, or undefined when it is (./modules.ts). */
  notRun(segment: string): string | undefined;
  /** The http_server that got `--port` (its bind failure says "set PORT or --port"). */
  httpSeededNode(): string | undefined;
}

/** See the module comment. */
export class LocalTerminal {
  #edgeErrors: ManifestError[] = [];
  /** Notes of the last manifest read (skipped documents), so a reload does not repeat them. */
  #notesShown = new Set<string>();
  readonly #notOurs = new Set<string>();
  /** Nodes that had a runner (their removal is announced). */
  readonly #ran = new Set<string>();
  /** Pinned bind errors: a node's status shows them until its port listens ({@link admitStatus}). */
  readonly #pinned = new Map<string, string>();
  /** Nodes whose http_server could not bind, with the port it tried (0 when unknown). */
  readonly listenFailures = new Map<string, ListenFailure & { port: number }>();
  #lastHint: string | undefined;

  /** @param h - what the terminal reads (see {@link LocalTerminalHost}). */
  constructor(readonly h: LocalTerminalHost) {}

  /** A manifest read was applied: its notes (once), other modules' nodes (once), the problems now. */
  read(set: DesiredSet): void {
    for (const n of set.notes) if (!this.#notesShown.has(n)) this.h.report.line(`note: ${n}`);
    this.#notesShown = new Set(set.notes);
    for (const entry of set.nodes.values()) this.owned(entry);
    this.problems();
  }

  /** True when this module runs `entry` (its name's module segment, runtime-spec §16 item 1); says so once when not. */
  owned(entry: NodeManifest): boolean {
    const name = entry.node.metadata.name;
    if (this.h.owns(name)) return true;
    if (!this.#notOurs.has(name)) {
      this.#notOurs.add(name);
      const segment = parseFullName(name).module;
      const why = this.h.notRun(segment);
      this.h.report.line(
        `note: ${entry.file}:${entry.line}: node ${name} belongs to module ${segment}, not ${this.h.module}; not run here${why ? ` (${why})` : ""}`,
      );
    }
    return false;
  }

  /** Node `name` was reconciled: its status line (printed when it changed). */
  reconciled(name: string): void {
    if (this.h.scheduler.runner(name)) this.#ran.add(name);
    const node = this.h.nodes.find(name);
    if (node?.status) this.#show(name, node);
  }

  /** A write to the in-memory API: the status line when the status changed; a line when a node that ran is gone. */
  changed(c: NodeChange): void {
    if (!c.after) {
      this.#pinned.delete(c.name);
      this.listenFailures.delete(c.name);
      if (this.#ran.delete(c.name)) this.h.report.nodeRemoved(c.name, c.before!.spec.component);
      return;
    }
    if (c.before && c.after.status && JSON.stringify(c.before.status) !== JSON.stringify(c.after.status)) this.#show(c.name, c.after);
  }

  #show(name: string, node: TinyNode): void {
    const entry = this.h.source.desired.get(name);
    const component = node.spec.component;
    const status = node.status as TinyNodeStatus;
    // An unknown component is a listed problem (with file and line): its status line would repeat it.
    if (this.h.scheduler.refusal(name, component) !== undefined) this.h.report.statusShown(name, component, status);
    else if (entry) this.h.report.nodeStatus(name, component, status, `${entry.file}:${entry.line}`);
  }

  /** Prints the problems not printed yet (manifests, unknown components, edges, component files). */
  problems(): void {
    const { source, scheduler } = this.h;
    const problems: Problem[] = source.errors.filter((e) => this.#stillReported(e)).map(asProblem);
    for (const entry of source.desired.values()) {
      if (!this.owned(entry)) continue;
      const detail = scheduler.refusal(entry.node.metadata.name, entry.node.spec.component);
      if (detail === undefined) continue;
      problems.push(asProblem(new ManifestError("UNKNOWN_COMPONENT", entry.file, entry.line, entry.node.metadata.name, detail)));
    }
    problems.push(...this.#edgeErrors.map(asProblem));
    for (const [file, text] of this.h.components.errors) problems.push({ level: "error", text, source: `component file\u0000${file}` });
    this.h.report.problems(problems);
  }

  /**
   * False for an expression syntax error read before the components loaded that sits in a field
   * the node's component declares as its own template text (go_template's templates): the runner
   * keeps such text as written, so it is no problem.
   */
  #stillReported(e: ManifestError): boolean {
    if (e.code !== "EXPRESSION_SYNTAX") return true;
    const entry = this.h.source.desired.get(e.node);
    const templateText = entry && this.h.scheduler.installed(entry.node.spec.component)?.templateText;
    if (!entry || !templateText) return true;
    return portExpressionProblems(entry.node.spec.ports, (port) => templateText[port]).some((p) => e.detail === p.problem);
  }

  /** Every reconcile is done: ports are known, so edges are checked, and fixes announced without a new error right behind them. */
  settled(): void {
    const { source, scheduler } = this.h;
    this.#edgeErrors = edgeProblems({
      nodes: source.desired,
      module: this.h.module,
      runsHere: (entry) => this.owned(entry),
      portsOf: (name) => {
        const r = scheduler.runner(name);
        if (!r || r.lastError) return undefined;
        try {
          return { component: r.instance.definition.info.name, ports: r.ports() };
        } catch {
          return undefined; // a throwing ports(): its hops report it
        }
      },
    });
    this.problems();
    this.h.report.settle([...source.desired.keys()].filter((n) => this.h.nodes.find(n)?.status?.error === true));
    const names = [...source.desired.keys()];
    const hint = names.some((n) => this.h.owns(n)) ? undefined : nothingRunsHint(this.h.module, shownPath(this.h.dir), names, source.errors.length);
    if (hint !== undefined && hint !== this.#lastHint) this.h.report.line(`note: ${hint}`);
    this.#lastHint = hint;
  }

  /** The in-memory API's admission hook: a pinned bind error stays the node's status. */
  admitStatus(name: string, status: TinyNodeStatus): void {
    const pinned = this.#pinned.get(name);
    if (pinned !== undefined) Object.assign(status, { status: pinned, error: true });
  }

  /**
   * An http_server could not bind: pin the error on its status and say what to do — one line, the
   * node's status line, once per failure (a restore on reconcile and the start hop that follows
   * are the same event).
   */
  listenFailed(f: ListenFailure): void {
    const port = Number(this.h.nodes.find(f.node)?.status?.metadata?.[HTTP_PORT_METADATA_KEY] ?? 0) || 0;
    const known = this.listenFailures.get(f.node);
    this.listenFailures.set(f.node, { ...f, port });
    if (known?.error.message !== f.error.message) {
      const advice = f.inUse && port > 0 ? `port ${port} is in use${f.node === this.h.httpSeededNode() ? ": set PORT or --port" : ""}` : f.error.message;
      const entry = this.h.source.desired.get(f.node);
      // Printed here, with advice; the status write below then finds the line already shown.
      this.h.report.nodeError(
        f.node,
        HTTP_SERVER_COMPONENT,
        { status: f.error.message, error: true },
        `${entry ? `${entry.file}:${entry.line}: ` : ""}${advice} (the other nodes keep running)`,
      );
    }
    this.#pinned.set(f.node, f.error.message);
    void this.h.nodes.patch(f.node, () => {}).catch(() => {}); // the admission hook writes the pinned error
  }

  /** The http_server on `port` listens now: its earlier bind failure is over. */
  listening(port: number): void {
    for (const [name, f] of this.listenFailures) {
      if (f.port !== port) continue;
      this.listenFailures.delete(name);
      this.#pinned.delete(name);
      const status = this.h.scheduler.readStatus(name);
      if (status)
        void this.h.nodes
          .patch(name, (n) => void Object.assign(n.status ?? (n.status = {} as TinyNodeStatus), { status: status.status, error: status.error }))
          .catch(() => {});
    }
  }
}

/**
 * Why nothing runs, or undefined when some node's name carries module `module` (ownership by the
 * name's module segment, runtime-spec §16 item 1).
 * @param module the module local mode runs as.
 * @param dir the manifests directory as shown to the user.
 * @param names the declared TinyNode names.
 * @param errors how many manifest problems were reported (mentioned when no node was read).
 * @returns e.g. `no nodes for module x in examples/a: found nodes of modules [a, b]`, or
 *   `no TinyNode manifests in examples/a`.
 */
export function nothingRunsHint(module: string, dir: string, names: readonly string[], errors = 0): string | undefined {
  if (names.length === 0) return `no TinyNode manifests in ${dir}${errors > 0 ? " (see the errors above)" : ""}`;
  const modules = new Set(names.map((n) => parseFullName(n).module));
  if ([...modules].some((m) => nameMatches(m, module))) return undefined;
  return `no nodes for module ${module} in ${dir}: found nodes of modules [${[...modules].sort().join(", ")}]`;
}

/** A manifest problem for the report: keyed without its line, so a problem that only moved is not news. */
function asProblem(e: ManifestError): Problem {
  const oneAtATime = e.code === "YAML_SYNTAX" || e.code === "READ_FAILED"; // a file has one such error at a time
  return {
    level: e.severity,
    text: e.message,
    ...(e.node ? { node: e.node } : {}),
    key: `${e.code}\u0000${e.file}\u0000${e.node}\u0000${e.detail}`,
    ...(oneAtATime ? { source: `manifest file\u0000${e.file}` } : {}),
  };
}
