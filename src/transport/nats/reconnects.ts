/**
 * Reconnect events of one NATS connection, fanned out to listeners (the consumer supervisors). A
 * pull request the broker held is gone after a broker restart, and API requests sent while
 * disconnected wait out their timeout; the supervisors restart their pulls when told instead.
 */
import type { NatsConnection } from "@nats-io/transport-node";

/** Registers `listener` for every reconnect of the connection; returns the unsubscribe. */
export type ReconnectEvents = (listener: () => void) => () => void;

/** Reads `nc.status()` once for all listeners until {@link ReconnectFanout.close} or the connection closes. */
export class ReconnectFanout {
  readonly #listeners = new Set<() => void>();
  readonly #status: AsyncIterable<{ type: string }> & { stop?: () => void };

  constructor(nc: NatsConnection) {
    this.#status = nc.status();
    void this.#read();
  }

  async #read(): Promise<void> {
    for await (const s of this.#status) {
      if (s.type !== "reconnect") continue;
      for (const l of [...this.#listeners]) l();
    }
  }

  /** The {@link ReconnectEvents} of this connection. */
  readonly events: ReconnectEvents = (listener) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  /** Stops reading the connection's status (idempotent). */
  close(): void {
    this.#listeners.clear();
    this.#status.stop?.();
  }
}
