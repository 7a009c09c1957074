/**
 * Local mode's start signals (`send_signal` → the `tinyhost.io/start-signal` annotation): once every
 * node of the first read was reconciled, each node's annotation is sent to its `_control` port; a
 * node reconciled later, or whose annotation a YAML edit changed, gets its (new) value then — each
 * value once per node. It subscribes itself to the host's events (./host-events.ts).
 */
import type { Runnable } from "../manager/index.ts";
import { SystemPort } from "../core/ports.ts";
import type { Result } from "../core/result.ts";
import { START_SIGNAL_ANNOTATION } from "./constants.ts";
import type { LocalHostEvents } from "./host-events.ts";
import type { NodeManifest } from "./manifests.ts";

/** What {@link StartSignals} reads and calls. */
export interface StartSignalsOptions {
  /** The host's events; the signals subscribe to reads, node changes and reconciles. */
  events: LocalHostEvents;
  /** Declared nodes by name (the last good version of each). */
  desired: () => ReadonlyMap<string, NodeManifest>;
  /** True when node `name` has a runner. */
  runs: (name: string) => boolean;
  /** Sends `data` to `<node>:<port>` as the platform's `send_signal` does. */
  send: (node: string, port: string, data: unknown) => Promise<Result>;
  /** A signal hop to `node` failed (printed unless its span already was). */
  failed: (node: string, error: Error) => void;
  /** Prints a line of the human log. */
  line: (text: string) => void;
  /** Resolves once the controller saw every write and nothing is queued or running. */
  quiet: () => Promise<void>;
  /** True once the host stops. */
  stopped: () => boolean;
}

/** The start signals (see the file comment). */
export class StartSignals {
  /** Last start-signal value sent per node. */
  readonly #signalled = new Map<string, string>();
  #open = false;
  #ready = false;

  constructor(readonly o: StartSignalsOptions) {
    o.events.on("nodeChanged", (c) => {
      if (!c.after) this.#signalled.delete(c.name);
    });
    o.events.on("reconciled", (name) => this.#maybeSignal(name));
    // A changed start-signal annotation is sent again once the changes are reconciled.
    o.events.on("read", (_current, diff) => {
      if (this.#open && diff.changed.length) void o.quiet().then(() => diff.changed.forEach((n) => this.#maybeSignal(n)));
    });
  }

  /** True once the first signals were sent (every node of the first read reconciled). */
  get ready(): boolean {
    return this.#ready;
  }

  /** The runnable (group `receivers`): start waits for `idle`, then opens the signals and sends each node's; stop closes them. */
  runnable(idle: () => Promise<void>): Runnable {
    return {
      name: "start signals",
      start: async () => {
        await idle();
        this.#open = true;
        for (const name of this.o.desired().keys()) this.#maybeSignal(name);
        this.#ready = true;
      },
      stop: () => void (this.#open = false),
    };
  }

  /** Sends the node's start signal (annotation) when signals are open, the node runs and the value was not sent yet. */
  #maybeSignal(name: string): void {
    if (!this.#open || this.o.stopped()) return;
    const entry = this.o.desired().get(name);
    const raw = entry?.node.metadata.annotations?.[START_SIGNAL_ANNOTATION];
    if (!entry || raw === undefined || !this.o.runs(name) || this.#signalled.get(name) === raw) return;
    this.#signalled.set(name, raw);
    let data: unknown;
    try {
      data = JSON.parse(raw);
    } catch (err) {
      this.o.line(`error: ${entry.file}:${entry.line}: node ${name}: annotation ${START_SIGNAL_ANNOTATION} is not JSON (${(err as Error).message})`);
      return;
    }
    void this.o.send(name, SystemPort.control, data).then((r) => {
      // Printed unless the hop's own span already did (the usual case); a hop that never reached
      // the node (no `_control` port) is only known here.
      if (r.kind === "fail" && !this.o.stopped()) this.o.failed(name, r.error);
    });
  }
}
