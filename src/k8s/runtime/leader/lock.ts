/**
 * The resource lock leader election writes: one coordination.k8s.io/v1 Lease (client-go
 * `resourcelock.LeaseLock`). Reads and compare-and-swap writes only; the elector decides.
 */
import { isNotFound } from "../../client/errors.ts";
import { leases, type Lease } from "../../client/resources.ts";
import type { ResourceDescriptor } from "../../client/types.ts";

/** The Lease `spec` fields of a leader-election record (times are MicroTime strings). */
export type LeaseSpec = NonNullable<Lease["spec"]>;

/** Reads and writes one Lease. Every call may be cancelled with `signal`. */
export interface LeaseLock {
  /** `namespace/name` of the Lease, for messages. */
  readonly describe: string;
  /** The Lease, or undefined when it does not exist. @throws on any other API or connection error. */
  get(signal?: AbortSignal): Promise<Lease | undefined>;
  /** Creates the Lease. @throws KubeApiError `AlreadyExists` when another candidate created it first. */
  create(lease: Lease, signal?: AbortSignal): Promise<Lease>;
  /**
   * Replaces the Lease; `lease.metadata.resourceVersion` makes it a compare-and-swap.
   * @throws KubeApiError `Conflict` when the Lease changed since it was read.
   */
  update(lease: Lease, signal?: AbortSignal): Promise<Lease>;
}

/** The subset of the REST client {@link leaseLock} calls. */
export interface LeaseClient {
  get<T extends Lease>(res: ResourceDescriptor<T>, name: string, namespace?: string, options?: { signal?: AbortSignal }): Promise<T>;
  create<T extends Lease>(res: ResourceDescriptor<T>, object: T, options?: { signal?: AbortSignal; namespace?: string }): Promise<T>;
  update<T extends Lease>(res: ResourceDescriptor<T>, object: T, options?: { signal?: AbortSignal; namespace?: string }): Promise<T>;
}

/**
 * The Lease `namespace/name` through the REST client.
 * @param client - the REST client (or anything with its get/create/update).
 */
export function leaseLock(client: LeaseClient, namespace: string, name: string): LeaseLock {
  const opts = (signal?: AbortSignal) => ({ namespace, ...(signal ? { signal } : {}) });
  return {
    describe: `${namespace}/${name}`,
    async get(signal) {
      try {
        return await client.get(leases, name, namespace, signal ? { signal } : {});
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    create: (lease, signal) => client.create(leases, withName(lease, namespace, name), opts(signal)),
    update: (lease, signal) => client.update(leases, withName(lease, namespace, name), opts(signal)),
  };
}

function withName(lease: Lease, namespace: string, name: string): Lease {
  return { ...lease, metadata: { ...lease.metadata, name, namespace } };
}

/**
 * Formats a time as `metav1.MicroTime` does on the wire: RFC 3339 with exactly six fractional
 * digits, UTC (`2006-01-02T15:04:05.000000Z`).
 */
export function formatMicroTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}
