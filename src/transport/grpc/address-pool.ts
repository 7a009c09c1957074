/**
 * Module name → gRPC address, with one connection per address shared by every module that lives
 * there (runtime-spec §4.7 client pool, §5.2: fed from other modules' `TinyModule.status.addr`,
 * deregistered when the TinyModule is gone).
 *
 * Connections are dialled lazily on first use (or on register with `prewarm`) and closed as soon as
 * no module maps to their address and no call still holds them. The dialler is injected, so the
 * bookkeeping is unit-testable without a network.
 */
import { ModuleAddressUnknownError } from "./errors.ts";

/** What the pool needs from a connection: a way to close it. */
export interface Closable {
  close(): void;
}

/** A connection handed out for one call; `release()` exactly once when the call ends. */
export interface ConnectionLease<C> {
  readonly conn: C;
  readonly address: string;
  release(): void;
}

interface Entry<C> {
  conn: C | undefined;
  /** Modules currently registered at this address. */
  readonly modules: Set<string>;
  /** Calls in flight on this connection. */
  inflight: number;
}

/** Options of {@link AddressPool}. */
export interface AddressPoolOptions {
  /** Dial on `register` instead of on the first call (Go pre-warms on Register). Default false. */
  prewarm?: boolean;
}

/**
 * The module → address table and the shared connections (runtime-spec §4.7).
 * @typeParam C the connection type the `dial` function returns.
 */
export class AddressPool<C extends Closable> {
  readonly #dial: (address: string) => C;
  readonly #prewarm: boolean;
  readonly #modules = new Map<string, string>();
  readonly #entries = new Map<string, Entry<C>>();

  /** @param dial opens a connection to `"host:port"`; called at most once per live address. */
  constructor(dial: (address: string) => C, options: AddressPoolOptions = {}) {
    this.#dial = dial;
    this.#prewarm = options.prewarm ?? false;
  }

  /**
   * Points `module` at `address` (`"host:port"`). Re-registering the same pair is a no-op; a new
   * address releases the module's old connection (closed if nobody else uses it).
   * @throws TypeError when `module` or `address` is empty.
   */
  register(module: string, address: string): void {
    if (!module) throw new TypeError(`address pool: module name is empty (address ${JSON.stringify(address)})`);
    if (!address) throw new TypeError(`address pool: address of module ${JSON.stringify(module)} is empty`);
    const old = this.#modules.get(module);
    if (old === address) return;
    if (old !== undefined) this.#detach(module, old);
    this.#modules.set(module, address);
    let e = this.#entries.get(address);
    if (!e) {
      e = { conn: undefined, modules: new Set(), inflight: 0 };
      this.#entries.set(address, e);
    }
    e.modules.add(module);
    if (this.#prewarm && !e.conn) e.conn = this.#dial(address);
  }

  /** Forgets `module` (TinyModule NotFound, runtime-spec §5.2); unknown modules are ignored. */
  deregister(module: string): void {
    const old = this.#modules.get(module);
    if (old === undefined) return;
    this.#modules.delete(module);
    this.#detach(module, old);
  }

  /** The address registered for `module`, or `undefined`. */
  address(module: string): string | undefined {
    return this.#modules.get(module);
  }

  /** Registered modules and their addresses (a snapshot). */
  entries(): Array<[module: string, address: string]> {
    return [...this.#modules];
  }

  /** Number of open connections (for tests and metrics). */
  get openConnections(): number {
    let n = 0;
    for (const e of this.#entries.values()) if (e.conn) n++;
    return n;
  }

  /**
   * Takes the connection to `module`'s address for one call, dialling it if needed.
   * @throws ModuleAddressUnknownError (`"<module> module address is unknown"`) when unregistered.
   */
  acquire(module: string): ConnectionLease<C> {
    const address = this.#modules.get(module);
    if (address === undefined) throw new ModuleAddressUnknownError(module);
    const e = this.#entries.get(address)!;
    e.conn ??= this.#dial(address);
    e.inflight++;
    const conn = e.conn;
    let released = false;
    return {
      conn,
      address,
      release: () => {
        if (released) return;
        released = true;
        e.inflight--;
        this.#maybeClose(address, e);
      },
    };
  }

  /** Closes every connection and forgets every module (shutdown). In-flight calls are cut off. */
  close(): void {
    for (const e of this.#entries.values()) e.conn?.close();
    this.#entries.clear();
    this.#modules.clear();
  }

  #detach(module: string, address: string): void {
    const e = this.#entries.get(address);
    if (!e) return;
    e.modules.delete(module);
    this.#maybeClose(address, e);
  }

  #maybeClose(address: string, e: Entry<C>): void {
    if (e.modules.size > 0 || e.inflight > 0) return;
    // The entry may have been replaced after close(); only drop our own.
    if (this.#entries.get(address) === e) this.#entries.delete(address);
    e.conn?.close();
    e.conn = undefined;
  }
}
