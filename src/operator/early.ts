/**
 * The cluster start's first stage: the kubeconfig, then at once the three requests
 * /readyz waits on — the Lease get (leadership.ts), the TinyNode cache's first list page
 * (src/k8s/runtime/primed-source.ts) and the own TinyModule creates (register.ts; one per served
 * name, src/operator/served.ts) — sent before the
 * rest of the module is loaded. The CLI calls {@link beginStart} and only then imports the runtime
 * (src/cli/commands/run-cluster.ts), so evaluating pino, the NATS client and the runtime (~12 ms in
 * the compiled binary, bench/start-imports.ts) overlaps with those round trips instead of coming
 * before them.
 *
 * So this file imports only the API client, the elector and the registration: no logger module
 * (`log` is used only in callbacks that run after a response; the CLI passes a lazy one), no wire,
 * no runtime. bench/start-imports.ts measures what importing it costs.
 */
import { sanitizeResourceName, type TinyNode } from "../core/api/index.ts";
import { createKubeClient, type KubeClient } from "../k8s/client/index.ts";
import { tinyNodes } from "../k8s/controllers/types.ts";
import { resourceSource, type WatchSource } from "../k8s/runtime/index.ts";
import { primedSource } from "../k8s/runtime/primed-source.ts";
import type { EarlyLoop, Runnable } from "../manager/index.ts";
import type { Logger } from "../telemetry/log.ts";
import { version as tinyhostVersion } from "../core/version.ts";
import { DEFAULT_LEASE_TIMINGS, Leadership, leaseCampaign } from "./leadership.ts";
import type { ModuleOptions } from "./options.ts";
import { ownModuleRegistration } from "./register.ts";
import { ModuleStartError } from "./start-error.ts";

/** What the first stage made: the API client and the three parts whose requests are on the wire. */
export interface EarlyParts {
  kube: KubeClient;
  /** The Lease campaign, adopted by the manager (group election). */
  election: EarlyLoop;
  /** The TinyNode list/watch source; its first page is on the wire. */
  nodeSource: WatchSource<TinyNode>;
  /** The own TinyModules' registrations, `--name`'s then each `--also`'s (group controllers waits for them). */
  registrations: readonly Runnable[];
  /** How long reading the kubeconfig took, ms (the `start: kubeconfig` log line). */
  kubeconfigMs: number;
}

/** A started first stage. */
export interface EarlyStart {
  /** The pod's leadership, set by the campaign. */
  readonly leadership: Leadership;
  /** The parts; rejects with a {@link ModuleStartError} for stage `kubeconfig`. */
  readonly parts: Promise<EarlyParts>;
  /**
   * Resolves, never rejects, once the requests left: after the microtasks that carry them down to
   * `fetch()` (a `setImmediate` later), or when the kubeconfig failed. Synchronous work started
   * after it (module evaluation) no longer holds them back.
   */
  readonly sent: Promise<void>;
  /** Ends the campaign (the Lease is released) when start-up fails before the manager adopted it. */
  cancel(): Promise<void>;
}

/**
 * Reads the kubeconfig and sends the three requests (see the file comment).
 * @param log - the module's logger; not touched until a response arrived.
 */
export function beginStart(o: ModuleOptions, log: Logger): EarlyStart {
  const leadership = new Leadership();
  const moduleName = sanitizeResourceName(o.name);
  const t0 = performance.now();
  const parts = createKubeClient({ ...(o.kubeconfig ? { kubeconfig: o.kubeconfig } : {}), env: o.env }).then(
    (kube): EarlyParts => ({
      kube,
      kubeconfigMs: performance.now() - t0,
      // In this order: the Lease's get is on the path to a leader, the longest.
      election: leaseCampaign({ kube, namespace: o.namespace, moduleName, hostname: o.hostname, timings: o.lease ?? DEFAULT_LEASE_TIMINGS, leadership, log }),
      nodeSource: primedSource(resourceSource(kube, tinyNodes, { namespace: o.namespace })),
      registrations: [o.name, ...(o.also ?? [])].map((name) =>
        ownModuleRegistration({ kube, namespace: o.namespace, module: { name, version: o.version }, runtimeVersion: tinyhostVersion, log }),
      ),
    }),
    (err: unknown) => {
      throw new ModuleStartError("kubeconfig", err);
    },
  );
  parts.catch(() => {}); // reported by whoever awaits it (startModule), as the stage's failure
  const sent = parts.then(
    () => new Promise<void>((r) => setImmediate(r)),
    () => undefined,
  );
  return {
    leadership,
    parts,
    sent,
    cancel: () =>
      parts.then(
        (p) => p.election.cancel(),
        () => {},
      ),
  };
}
