/**
 * Readiness checks for /readyz: named functions that each say whether one dependency is ready.
 * The probe is ready only when every check passes (Kubernetes docs "Configure Liveness, Readiness
 * and Startup Probes"; controller-runtime `healthz.Checker` by name).
 */
import { messageOf } from "../core/errors.ts";

/** One check: `true` when ready, or a short reason (string) why not. Must not throw; a throw counts as not ready. */
export type ReadinessCheck = () => true | string;

/** Result of running every check. */
export interface ReadinessReport {
  /** True when every check passed. */
  ready: boolean;
  /** Per check: `"ok"` or the reason it failed. */
  checks: Record<string, string>;
}

/** Runs `checks` in insertion order and collects their answers. */
export function runChecks(checks: ReadonlyMap<string, ReadinessCheck> | Record<string, ReadinessCheck>): ReadinessReport {
  const entries = checks instanceof Map ? [...checks.entries()] : Object.entries(checks);
  const out: Record<string, string> = {};
  let ready = true;
  for (const [name, check] of entries) {
    let answer: true | string;
    try {
      answer = check();
    } catch (err) {
      answer = `check threw: ${messageOf(err)}`;
    }
    if (answer === true) out[name] = "ok";
    else {
      ready = false;
      out[name] = answer;
    }
  }
  return { ready, checks: out };
}
