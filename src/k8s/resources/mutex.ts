/**
 * A promise-chain mutex: the process-local lock the Go manager holds around ExposePort and
 * DisclosePort (runtime-spec §7.1 step 3). It only spares conflicts between calls of one process;
 * correctness across processes comes from resourceVersion checks (release-updates.ts, src/k8s/client/conflict.ts).
 */
export class Mutex {
  #tail: Promise<void> = Promise.resolve();

  /** Runs `fn` after every earlier holder finished (success or failure); resolves to its result. */
  run<R>(fn: () => Promise<R>): Promise<R> {
    const result = this.#tail.then(fn);
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
