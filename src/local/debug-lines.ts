/**
 * Every message a `debug` node receives, as a terminal line (`debug "Up": {…}`): the Node-RED debug
 * sidebar of local mode. A debug node's status only keeps the latest message (components.md §1.12)
 * and its status patch is debounced (runtime-spec §2.9), so a burst (an array split in four) would
 * show one of them; these lines come from the hops themselves. A node that receives more than
 * {@link DEBUG_LINES_PER_WINDOW} messages in a window prints that many and then, once the window
 * ends, how many it did not print — never silently (the console's stream keeps them).
 */
import { timerSchedule, type Schedule } from "./repeat-limiter.ts";

/** Lines printed per debug node per window; more are counted. */
export const DEBUG_LINES_PER_WINDOW = 20;

/** The window, ms. */
export const DEBUG_WINDOW_MS = 1000;

/** Longest message text printed on one line, characters (the console shows more). */
export const DEBUG_LINE_CHARS = 240;

interface Window {
  printed: number;
  skipped: number;
  cancel: () => void;
}

/** Options of {@link DebugLines}. */
export interface DebugLinesOptions {
  /** Lines per node per window (default {@link DEBUG_LINES_PER_WINDOW}). */
  perWindow?: number;
  /** The window, ms (default {@link DEBUG_WINDOW_MS}). */
  windowMs?: number;
  /** Timer (default `setTimeout`, unref'd; tests pass a manual one). */
  schedule?: Schedule;
  /** Where the messages not printed can be seen, ending their count's line (e.g. `see the console`); default none. */
  hint?: () => string | undefined;
}

/** Prints debug nodes' messages, rate-limited per node (see the module comment). */
export class DebugLines {
  readonly #windows = new Map<string, Window>();
  readonly #perWindow: number;
  readonly #windowMs: number;
  readonly #schedule: Schedule;
  readonly #hint: () => string | undefined;

  /**
   * @param out receives each line.
   * @param shown the display name of a node (src/local/node-names.ts).
   */
  constructor(
    readonly out: (line: string) => void,
    readonly shown: (node: string) => string,
    options: DebugLinesOptions = {},
  ) {
    this.#perWindow = options.perWindow ?? DEBUG_LINES_PER_WINDOW;
    this.#windowMs = options.windowMs ?? DEBUG_WINDOW_MS;
    this.#schedule = options.schedule ?? timerSchedule;
    this.#hint = options.hint ?? (() => undefined);
  }

  /** Debug node `node` received a message whose (redacted JSON) text is `text`. */
  message(node: string, text: string): void {
    let w = this.#windows.get(node);
    if (!w) {
      w = { printed: 0, skipped: 0, cancel: () => {} };
      this.#windows.set(node, w);
      this.#arm(node, w);
    }
    if (w.printed < this.#perWindow) {
      w.printed++;
      this.out(`debug ${this.shown(node)}: ${text.length > DEBUG_LINE_CHARS ? `${text.slice(0, DEBUG_LINE_CHARS)}…` : text}`);
    } else w.skipped++;
  }

  /** Prints the pending counts now and closes every window (on stop). */
  flush(): void {
    for (const [node, w] of this.#windows) {
      w.cancel();
      this.#summarise(node, w, "");
    }
    this.#windows.clear();
  }

  #arm(node: string, w: Window): void {
    w.cancel = this.#schedule(() => {
      const busy = this.#summarise(node, w, ` in the last ${this.#windowMs / 1000} s`);
      if (busy) {
        w.printed = 0;
        w.skipped = 0;
        this.#arm(node, w); // still busy: keep counting into the next window
      } else this.#windows.delete(node);
    }, this.#windowMs);
  }

  /** Prints the window's skipped count; true when the window was busy (anything printed or skipped). */
  #summarise(node: string, w: Window, span: string): boolean {
    if (w.skipped > 0) {
      const hint = this.#hint();
      this.out(`debug ${this.shown(node)}: ${w.skipped} more message${w.skipped === 1 ? "" : "s"}${span} not printed${hint ? ` (${hint})` : ""}`);
    }
    return w.printed > 0 || w.skipped > 0;
  }
}
