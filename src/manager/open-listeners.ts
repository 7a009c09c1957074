/**
 * The HTTP listeners open in this process, by owner, so a host can drain its own on shutdown
 * before it stops the nodes (in-flight requests finish, new connections are refused).
 *
 * Why a registry: a listener is opened by a component (http_server), the drain is a step of the
 * host's shutdown (src/manager/http-drain.ts), and the runtime hands components no host object.
 * The owner is the node's lifetime signal (`ctx.nodeSignal`), which the host can list from its
 * scheduler — several hosts in one process (tests) each drain only their own nodes' listeners.
 */

/** What the registry needs from a listener. */
export interface Drainable {
  /** The node lifetime the listener belongs to, if any. */
  readonly owner: AbortSignal | undefined;
  /** Requests waiting for their flow now. */
  readonly inFlight: number;
  /** Requests the close cancelled because they ran past its grace (0 until it did). */
  readonly cancelledAtClose: number;
  /** Graceful close: refuse new connections, let in-flight requests finish for at most `graceMs`, cancel the rest (503). */
  close(graceful: true, graceMs: number): Promise<void>;
}

const open = new Set<Drainable>();

/** Adds `l` (called by the listener once bound). */
export function registerListener(l: Drainable): void {
  open.add(l);
}

/** Removes `l` (called by the listener when it closes). */
export function unregisterListener(l: Drainable): void {
  open.delete(l);
}

/** What {@link drainListeners} did. */
export interface DrainReport {
  /** Listeners closed. */
  listeners: number;
  /** Requests in flight when the drain began. */
  requests: number;
  /** Requests still running at the bound, answered 503 `http_server stopped`. */
  cancelled: number;
}

/**
 * Gracefully closes every open listener whose owner is in `owners`, all at once: each stops
 * accepting (Bun `server.stop(false)`: new connections are refused), lets its in-flight requests
 * finish for at most `graceMs`, and answers the rest 503. Resolves once all are closed.
 */
export async function drainListeners(owners: ReadonlySet<AbortSignal>, graceMs: number): Promise<DrainReport> {
  const mine = [...open].filter((l) => l.owner !== undefined && owners.has(l.owner));
  const requests = mine.reduce((n, l) => n + l.inFlight, 0);
  await Promise.all(mine.map((l) => l.close(true, graceMs)));
  return { listeners: mine.length, requests, cancelled: mine.reduce((n, l) => n + l.cancelledAtClose, 0) };
}
