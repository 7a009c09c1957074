/**
 * The console of local mode as a runnable of the local host's manager (group `servers`: it starts
 * first and stops last): it records every hop into the {@link HopHistory}, follows the in-memory
 * TinyNode API with a list + watch (the same calls the TinyNode controller makes) so open pages
 * redraw when a node changes, and serves the console app (./api.ts) on a loopback address. Once
 * the nodes run ({@link LocalConsole.announcer}, group `receivers`) it writes the discovery file
 * (./discovery.ts) for `tinyhost send --local` — so a send that finds the file finds the nodes
 * running — and tells {@link LocalConsoleOptions.onReady} the URL.
 */
import type { Server } from "bun";
import type { TinyNode } from "../core/api/index.ts";
import type { WatchSource } from "../k8s/runtime/source.ts";
import type { Runnable } from "../manager/index.ts";
import { consoleApp, type ConsoleHost, type ConsoleState } from "./api.ts";
import type { ConsoleAddress } from "./address.ts";
import { removeConsoleRecord, writeConsoleRecord } from "./discovery.ts";
import { HopHistory } from "./history.ts";
import type { StreamClient } from "./stream.ts";

/** What the console runs over: a local host and its node API's watch. */
export interface ConsoleRunHost extends ConsoleHost {
  readonly nodes: ConsoleHost["nodes"] & WatchSource<TinyNode>;
  /** The manifests directory (the discovery file goes into its `.tinyhost/`). */
  readonly dir: string;
  /** Its state file (absolute), null when in memory; absent = not told (written into the discovery record). */
  readonly statePath?: string | null;
}

/** Options of {@link LocalConsole}. */
export interface LocalConsoleOptions {
  /** Where to listen. */
  address: ConsoleAddress;
  /** Told the URL once the nodes run (local mode prints `console: <url>/`). */
  onReady?: (url: string) => void;
  /** Write `<dir>/.tinyhost/console-<pid>.json` (default true; src/console/discovery.ts). */
  discovery?: boolean;
  /** Hops kept (default {@link HOP_HISTORY}). */
  history?: number;
}

/** A port already taken. */
function inUse(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  return e?.code === "EADDRINUSE" || /in use|EADDRINUSE/i.test(String(e?.message ?? ""));
}

/** The console (see the module comment). */
export class LocalConsole {
  readonly history: HopHistory;
  readonly #clients = new Set<StreamClient>();
  readonly #o: LocalConsoleOptions;
  readonly #host: ConsoleRunHost;
  #server: Server<undefined> | undefined;
  #unsubscribe: (() => void) | undefined;
  readonly #watch = new AbortController();
  #watching: Promise<void> = Promise.resolve();

  /** @param host the running local host. @param o see {@link LocalConsoleOptions}. */
  constructor(host: ConsoleRunHost, o: LocalConsoleOptions) {
    this.#host = host;
    this.#o = o;
    this.history = new HopHistory(o.history);
  }

  /** `http://<host>:<port>` once listening, else undefined. */
  get url(): string | undefined {
    const s = this.#server;
    if (!s) return undefined;
    const host = this.#o.address.hostname.includes(":") ? `[${this.#o.address.hostname}]` : this.#o.address.hostname;
    return `http://${host}:${s.port}`;
  }

  /** Open pages. */
  get clients(): number {
    return this.#clients.size;
  }

  /** The console as a runnable (group `servers`). */
  runnable(): Runnable {
    return { name: "console", start: () => this.start(), stop: () => this.stop() };
  }

  /** The runnable (group `receivers`, after the start signals) that writes the discovery file and tells `onReady`. */
  announcer(): Runnable {
    return { name: "console url", start: () => this.announce() };
  }

  /** Writes the discovery file and tells `onReady` the URL (the nodes run now). */
  announce(): void {
    const url = this.url;
    if (!url) return;
    if (this.#o.discovery !== false) {
      try {
        writeConsoleRecord(this.#host.dir, { url, pid: process.pid, ...(this.#host.statePath !== undefined ? { state: this.#host.statePath } : {}) });
      } catch {
        // A read-only directory: the console still serves; `send --console <url>` still works.
      }
    }
    this.#o.onReady?.(url);
  }

  /**
   * Records hops, follows the nodes and listens.
   * @throws the bind error when the address is taken (unless it is the default port, which falls back to any free port).
   */
  async start(): Promise<void> {
    const state: ConsoleState = { host: this.#host, history: this.history, clients: this.#clients, port: () => this.#server?.port ?? 0 };
    this.#unsubscribe = this.#host.onHop((r) => {
      // A hop the component never saw (settings a reconcile re-delivered unchanged) is not shown.
      if (r.result === undefined && !r.error) return;
      const e = this.history.add(r);
      // A failed hop changes its node's last error, which the page reads from the flow: without this
      // the box showed it only when some node's status changed afterwards (a ticking flow, not an idle one).
      const errorChanged = this.history.lastError(e.node)?.at === e.at && e.result === "fail";
      for (const c of this.#clients) {
        c.push(e);
        if (errorChanged) c.flowChanged();
      }
    });
    this.#watching = this.#follow(this.#watch.signal);
    const app = consoleApp(state);
    const { hostname, port, fallback } = this.#o.address;
    const serve = (p: number) => Bun.serve({ hostname, port: p, fetch: app.fetch, idleTimeout: 0 });
    try {
      this.#server = serve(port);
    } catch (err) {
      if (!fallback || !inUse(err)) throw new Error(`console: cannot listen on ${hostname}:${port}: ${(err as Error).message}`, { cause: err });
      this.#server = serve(0);
    }
  }

  /** Closes the pages' streams, stops listening, removes the discovery file. Safe to call twice. */
  async stop(): Promise<void> {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#watch.abort();
    for (const c of this.#clients) c.close();
    const server = this.#server;
    this.#server = undefined;
    if (server) {
      if (this.#o.discovery !== false) removeConsoleRecord(this.#host.dir, process.pid);
      await server.stop(true);
    }
    await this.#watching;
  }

  /** Tells the pages when a node changes: list, then watch from its resourceVersion; relist after an error. */
  async #follow(signal: AbortSignal): Promise<void> {
    const nodes = this.#host.nodes;
    while (!signal.aborted) {
      try {
        const list = await nodes.list({ signal });
        let rv = list.metadata.resourceVersion ?? "0";
        for await (const ev of nodes.watch({ resourceVersion: rv, allowWatchBookmarks: false, signal })) {
          if (ev.type === "ERROR") break; // relist
          rv = ev.object.metadata.resourceVersion ?? rv;
          const name = ev.object.metadata.name;
          if (name && (ev.type === "DELETED" || ev.type === "ADDED")) this.history.forget(name);
          for (const c of this.#clients) c.flowChanged();
        }
      } catch {
        if (signal.aborted) return;
        await Bun.sleep(100); // a 410 Gone (history compacted): relist
      }
    }
  }
}
