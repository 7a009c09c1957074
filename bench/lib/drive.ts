/**
 * The NATS request driver of the Go comparison benchmarks (bench/vs-go.ts with module processes,
 * bench/pods.ts with module pods): `n` requests from a sender in this process (tinyhost's own
 * transport, the same for both runtimes) to one node port with `window` in flight, and the probe
 * that checks a reply came from the expected runtime's `echo` (test/go/peer/components.go and its
 * twin bench/fixtures/peer-components/echo.ts answer `{echo, runtime, node}`).
 */
import type { Msg, Transport } from "../../src/core/hop.ts";
import type { Result } from "../../src/core/result.ts";
import type { Runtime } from "./peer.ts";
import { percentile } from "./result.ts";

/** What one drive measured. */
export interface Drive {
  /** Completed requests per second. */
  rate: number;
  /** Latency percentiles, ms. */
  p50: number;
  p99: number;
  /** CPU ms the module used per 1,000 requests (as `cpuMs` reads it). */
  cpuPer1k: number;
}

/** The body every benchmark request carries (a small object, as a flow's data is). */
const PAYLOAD = new TextEncoder().encode(JSON.stringify({ data: { n: 1, tag: "bench", list: [1, 2, 3] } }));

/**
 * Sends `n` requests to `to` (`<node>:<port>`) with `window` in flight; every reply must be ok.
 * @param cpuMs the module's CPU time so far in ms (read before and after the drive).
 * @param label names the module in the error.
 * @throws Error naming `label` and `to` when a request failed.
 */
export async function driveRequests(sender: Transport, to: string, n: number, window: number, cpuMs: () => number, label: string): Promise<Drive> {
  const lat = new Float64Array(n);
  let next = 0;
  let failed: Result | undefined;
  const cpu0 = cpuMs();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: window }, async () => {
      while (next < n) {
        const i = next++;
        const msg: Msg = { edgeId: "", from: "signal", to, data: PAYLOAD, depth: 0 };
        const s = performance.now();
        const r = await sender.send(msg);
        lat[i] = performance.now() - s;
        if (r.kind !== "ok") failed ??= r;
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  const cpu = cpuMs() - cpu0;
  if (failed) throw new Error(`${label} ${to}: a request failed: ${failed.kind === "fail" ? String(failed.error) : "empty reply"}`);
  const sorted = Array.from(lat).sort((a, b) => a - b);
  return { rate: n / secs, p50: percentile(sorted, 50), p99: percentile(sorted, 99), cpuPer1k: (cpu / n) * 1000 };
}

/**
 * Checks that a reply through `to` comes from `rt`'s echo (the request reached the right module).
 * @throws Error naming `rt`, `to` and what came back otherwise.
 */
export async function checkEcho(sender: Transport, rt: Runtime, to: string): Promise<void> {
  const r = await sender.send({ edgeId: "", from: "signal", to, data: new TextEncoder().encode('{"data":"probe"}'), depth: 0 });
  if (r.kind !== "ok") throw new Error(`${rt} ${to}: probe failed: ${r.kind === "fail" ? String(r.error) : "empty reply"}`);
  const v = r.value instanceof Uint8Array ? JSON.parse(new TextDecoder().decode(r.value)) : r.value;
  if (v?.runtime !== rt || v?.echo !== "probe") throw new Error(`${rt} ${to}: unexpected reply ${JSON.stringify(v)}`);
}
