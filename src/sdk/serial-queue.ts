/**
 * Runs async tasks one at a time, in call order — a per-instance mutex for read-modify-write on
 * node State (components.md §4.1 counter: "serialise the read-modify-write per instance").
 */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();

  /**
   * Runs `task` after every task queued before it has settled.
   * @returns `task`'s result; a rejection reaches only this caller, never later tasks.
   */
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task, task);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
