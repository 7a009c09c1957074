/**
 * What happens in a running local mode, told to the parts that keep state from it (the state file
 * ./state-keeper.ts, the start signals ./start-signals.ts, the terminal): each subscribes itself,
 * so a YAML edit enters the host once (`LocalHost.reloadManifests`) and reaches them as events.
 */
import type { DesiredSet } from "./desired.ts";
import type { NodeDiff } from "./directory-source.ts";
import type { NodeChange } from "./node-api.ts";

/** The events and their arguments. */
export interface LocalHostEventMap {
  /** A manifest read was applied: `current` is what runs now (nodes in their removal grace included), `diff` what changed. */
  read: [current: DesiredSet, diff: NodeDiff];
  /** The in-memory node API stored a write (./node-api.ts `onChange`). */
  nodeChanged: [change: NodeChange];
  /** The TinyNode controller reconciled a node this process owns (not told once the host stops). */
  reconciled: [name: string];
}

/** Listeners by event, told in the order they subscribed; a listener must not throw. */
export class LocalHostEvents {
  readonly #listeners: { [K in keyof LocalHostEventMap]: ((...args: LocalHostEventMap[K]) => void)[] } = { read: [], nodeChanged: [], reconciled: [] };

  /** Adds `listener` to `event` for the host's lifetime. */
  on<K extends keyof LocalHostEventMap>(event: K, listener: (...args: LocalHostEventMap[K]) => void): void {
    this.#listeners[event].push(listener);
  }

  /** Tells every listener of `event`. */
  emit<K extends keyof LocalHostEventMap>(event: K, ...args: LocalHostEventMap[K]): void {
    for (const l of this.#listeners[event]) l(...args);
  }
}
