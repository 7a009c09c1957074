/**
 * The runtime half of the scale-to-zero rule (docs/operations.md §15 "What scales and what must
 * not"): a module whose Deployment KEDA may take to zero replicas must hold no node of a component
 * that keeps its module running (`requirements.scaling.keepRunning`: http_server, ticker, cron).
 * `provision --autoscale` and `tools keda-values` check the flows they are shown; a flow applied
 * later is only seen here. The signal is `TINYHOST_AUTOSCALE_MIN`, the ScaledObject's
 * `minReplicaCount` that both write into the module's env — no apiserver read of KEDA's objects (the
 * module's Role has none, and KEDA may not even be reachable from it).
 * On min 0 such a node still runs while a pod is up; it gets a warning log (once per node and
 * replica) and a node status with `error: true` naming the component, the reason and the fix.
 */
import type { TinyNodeStatus } from "../core/api/index.ts";
import type { NodeScheduler } from "../k8s/controllers/index.ts";
import { envInteger } from "./env-integer.ts";

/** The module's autoscaling floor (KEDA `minReplicaCount`), as `provision --autoscale` and `tools keda-values --chart-values` set it. */
export const ENV_AUTOSCALE_MIN = "TINYHOST_AUTOSCALE_MIN";

/**
 * `TINYHOST_AUTOSCALE_MIN` as a number ≥ 0; undefined when unset (not autoscaled, as far as the module knows).
 * @throws Error naming the variable and the value when it is not a decimal integer (env-integer.ts).
 */
export function autoscaleMinFromEnv(env: Record<string, string | undefined>): number | undefined {
  return envInteger(env, ENV_AUTOSCALE_MIN, 0);
}

/** The status text and warning of node `node` of component `component` that keeps its module running for `why`. */
export function scaleToZeroProblem(node: string, component: string, why: string): string {
  return (
    `node ${node}: component ${component} keeps its module running (${why}), but the module is autoscaled with min 0 ` +
    `(${ENV_AUTOSCALE_MIN}=0): at zero replicas this node runs nothing and no backlog wakes it. ` +
    `Set min=1 (provision --autoscale min=1,… or tools keda-values --autoscale min=1,…; KEDA's minReplicaCount) or move the node to a module that is not scaled to zero`
  );
}

/** Options of {@link scaleToZeroGuard}. */
export interface ScaleToZeroGuardOptions {
  /** {@link autoscaleMinFromEnv}'s value; anything but 0 turns the guard off. */
  min: number | undefined;
  /** The `keepRunning` reason a component declares, or undefined (the live component set). */
  keepRunning: (component: string) => string | undefined;
  /** Where the warning goes. */
  log: { warn(obj: object, msg: string): void };
}

/**
 * `scheduler` whose `update` reports a node of a keep-running component as an error while the
 * module is autoscaled with min 0 (see the file header); the node itself runs as usual. Returns
 * `scheduler` unchanged when min is not 0.
 */
export function scaleToZeroGuard(scheduler: NodeScheduler, o: ScaleToZeroGuardOptions): NodeScheduler {
  if (o.min !== 0) return scheduler;
  const warned = new Set<string>();
  return {
    async update(node): Promise<TinyNodeStatus> {
      const status = await scheduler.update(node);
      const name = node.metadata.name ?? "";
      const why = o.keepRunning(node.spec.component);
      if (why === undefined) {
        warned.delete(name);
        return status;
      }
      const problem = scaleToZeroProblem(name, node.spec.component, why);
      if (!warned.has(name)) {
        warned.add(name);
        o.log.warn({ node: name, component: node.spec.component, [ENV_AUTOSCALE_MIN]: 0 }, problem);
      }
      return { ...status, status: problem, error: true };
    },
    async destroy(name) {
      warned.delete(name);
      await scheduler.destroy(name);
    },
  };
}
