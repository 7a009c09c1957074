/**
 * KEDA scales a module under load in the real cluster, and nothing is lost: a module provisioned
 * with `tinyhost provision --autoscale min=0,max=3,lag=50,polling=1,cooldown=30` on the real node,
 * KEDA v2.21.0's operator and metrics adapter beside it (test/support/keda.ts), serving the durable
 * 2-node flow `s1 → s2` of the fault bed (test/support/real-fault-bed.ts: each step holds 1 s and
 * appends `{pod, node, runId}` to a journal the test reads from the host). A pod runs at most 50
 * hops at once (`TINYHOST_MAX_CONCURRENT_HOPS`), the lag KEDA aims at per replica.
 * - Burst: 2,500 runs published at zero replicas (5,000 durable hops) → KEDA activates the module and
 *   its HPA takes it to the max (3); the backlog drains; after the cooldown KEDA takes it back to the
 *   min (0). Every hop is in the journal exactly once.
 * - Scale-in while hops run: the HPA's scale-down stabilization set to 0 (the HPA default waits
 *   300 s; a ScaledObject's `advanced` block sets it), a burst takes the module to 3, then a steady
 *   20 hops/s (about 20 in flight, below one replica's lag) makes the HPA remove replicas while each
 *   pod is running hops; the removed pods keep running hops after their deletion (the stop delay,
 *   then the drain), hand back what their last pull still delivers, and exit. Every hop is in the
 *   journal exactly once.
 * Lost = a (node, run) without a `done` line; duplicated = a second `done` line for one (node, run):
 * a handler that ran to the end twice (at-least-once would allow it only for a handler cut off between
 * its journal line and its step record; the graceful scale-in must not). Figures are printed (peak
 * replicas, time to peak, drain time, time back to min), never asserted as time.
 *
 * The file starts its own cluster (startFaultCluster): the burst loads the node heavily, and KEDA's
 * test support registers its metrics APIService once per control plane.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RealCluster } from "../support/real-cluster.ts";
import { startKeda, type Keda } from "../support/keda.ts";
import { openFaultBed, startFaultCluster, type FaultBed } from "../support/real-fault-bed.ts";
import { waitUntil } from "../support/process.ts";
import { kedaObjectName } from "../../src/provision/scaling.ts";

const START_TIMEOUT_MS = 60 * 60_000;
const RELEASE = "burst";
const MAX = 3;
/** Hops one pod runs at once, and the lag per replica KEDA aims at. */
const SLOTS = 50;
const AUTOSCALE = `min=0,max=${MAX},lag=${SLOTS},polling=1,cooldown=30`;
/** Work per step, ms: a pod runs at most SLOTS hops per HOLD_MS, so the burst outlasts the scale-up. */
const HOLD_MS = 1_000;
/** Runs of the burst (2 hops each). */
const BURST_RUNS = 2_500;
/** Generous bounds of the polled waits (a loaded 2-core machine). */
const SCALE_DEADLINE_MS = 300_000;

let cluster: RealCluster;
let keda: Keda;
let bed: FaultBed;
const figures: string[] = [];

beforeAll(async () => {
  cluster = await startFaultCluster();
  keda = await startKeda(cluster.controlPlane, mkdtempSync(join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "real-keda-burst-")));
  bed = await openFaultBed({
    cluster,
    release: RELEASE,
    tag: "real-keda-burst",
    buildLog: join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "real-keda-burst-build.log"),
    autoscale: AUTOSCALE,
    holdMs: HOLD_MS,
    env: { TINYHOST_MAX_CONCURRENT_HOPS: String(SLOTS) },
  });
}, START_TIMEOUT_MS);

afterAll(async () => {
  if (figures.length) console.error(`[real-keda-burst] summary:\n  ${figures.join("\n  ")}`);
  await bed?.close();
  if (bed) await cluster.controlPlane.request("DELETE", `/api/v1/namespaces/${bed.ns}`).catch(() => undefined);
  await keda?.stop();
  await cluster?.stop();
}, 180_000);

/** What a poll of the module saw: the Deployment's replicas, its Ready pods, when each pod was first seen deleted. */
class Watch {
  peak = 0;
  peakAt = 0;
  /** Fewest replicas seen after the peak. */
  lowAfterPeak = Number.POSITIVE_INFINITY;
  readonly deletedAt = new Map<string, number>();
  readonly gone = new Set<string>();
  replicas = -1;
  #on = true;
  readonly #loop: Promise<void>;
  constructor(readonly t0: number) {
    this.#loop = (async () => {
      while (this.#on) {
        await this.poll().catch(() => undefined);
        await Bun.sleep(250);
      }
    })();
  }
  async poll(): Promise<void> {
    const [replicas, pods] = await Promise.all([bed.replicas(), bed.modulePods()]);
    const now = Date.now();
    this.replicas = replicas;
    if (replicas > this.peak) {
      this.peak = replicas;
      this.peakAt = now;
      this.lowAfterPeak = replicas;
    }
    if (this.peak > 0) this.lowAfterPeak = Math.min(this.lowAfterPeak, replicas);
    for (const p of pods) if (p.metadata.deletionTimestamp && !this.deletedAt.has(p.metadata.name)) this.deletedAt.set(p.metadata.name, now);
    for (const name of this.deletedAt.keys()) if (!pods.some((p) => p.metadata.name === name)) this.gone.add(name);
  }
  async stop(): Promise<void> {
    this.#on = false;
    await this.#loop;
  }
}

/** The module's consumer: nothing waiting, nothing unacknowledged. */
async function consumerIdle(): Promise<boolean> {
  const ci = await bed.jsm.consumers.info("module-edges", RELEASE);
  return ci.num_pending === 0 && ci.num_ack_pending === 0;
}

/** KEDA has taken the idle module to zero (no pod left). */
async function atZero(): Promise<boolean> {
  return (await bed.replicas()) === 0 && (await bed.modulePods()).length === 0;
}

describe("KEDA scales a provisioned module on its JetStream backlog in the real cluster, nothing lost", () => {
  test(`a burst of ${BURST_RUNS * 2} durable hops: 0 → max ${MAX} replicas, drained, back to min 0 after the cooldown; 0 lost, 0 duplicated`, async () => {
    await waitUntil("KEDA scales the idle module to 0", atZero, SCALE_DEADLINE_MS, 500);
    const redelivered0 = await bed.redeliveries();
    const terminated0 = bed.terminations();
    const t0 = Date.now();
    const watch = new Watch(t0);
    const load = bed.startLoad({ burst: BURST_RUNS, runsPerTick: 0 });
    await load.burstStored;
    await load.stop();
    const publishedMs = Date.now() - t0;
    const expected = BURST_RUNS * 2;
    const mine = new Set(load.runs.keys());
    let drainedAt = 0;
    await waitUntil(
      `${expected} hops in the journal and the consumer idle`,
      async () => {
        const done = new Set(
          bed
            .journal()
            .filter((l) => mine.has(l.runId))
            .map((l) => `${l.node}/${l.runId}`),
        ).size;
        if (done < expected || !(await consumerIdle())) return false;
        drainedAt = Date.now();
        return true;
      },
      SCALE_DEADLINE_MS,
      1_000,
    );
    let backAt = 0;
    await waitUntil(
      "KEDA takes the drained module back to 0 after the cooldown",
      async () => {
        if (!(await atZero())) return false;
        backAt = Date.now();
        return true;
      },
      SCALE_DEADLINE_MS,
      500,
    );
    await watch.stop();
    const counts = await bed.count(load);
    const redelivered = (await bed.redeliveries()) - redelivered0;
    const line =
      `[real-keda-burst] burst of ${BURST_RUNS} runs (${expected} hops, ${HOLD_MS} ms each, ${SLOTS} slots/pod, ${AUTOSCALE}): published in ${publishedMs} ms; ` +
      `peak ${watch.peak} replicas ${watch.peakAt ? watch.peakAt - t0 : -1} ms after the burst began; drained ${drainedAt - t0} ms after it; ` +
      `back to 0 replicas ${backAt - drainedAt} ms after the drain; hops completed ${counts.completed}, duplicated ${counts.duplicated}, lost ${counts.lost}; ` +
      `redeliveries ${redelivered}; terminated ${bed.terminations() - terminated0}; publish retries ${load.publishRetries}; hops by pod ${JSON.stringify(counts.byPod)}`;
    figures.push(line);
    console.error(line);
    expect({
      peak: watch.peak,
      atZero: await atZero(),
      sent: counts.sent,
      completed: counts.completed,
      lost: counts.lost,
      duplicated: counts.duplicated,
    }).toEqual({
      peak: MAX,
      atZero: true,
      sent: expected,
      completed: expected,
      lost: 0,
      duplicated: 0,
    });
  }, 900_000);

  test("scale-in while hops run: the HPA removes replicas under a steady load; the removed pods' hops complete, 0 lost, 0 handled twice", async () => {
    // The HPA's default scale-down waits 300 s of lower recommendations; with 0 it acts on its next sync (15 s).
    await bed.api(
      "PATCH",
      `/apis/keda.sh/v1alpha1/namespaces/${bed.ns}/scaledobjects/${kedaObjectName(RELEASE)}`,
      { spec: { advanced: { horizontalPodAutoscalerConfig: { behavior: { scaleDown: { stabilizationWindowSeconds: 0 } } } } } },
      "application/merge-patch+json",
    );
    await waitUntil(
      "KEDA's HPA with the new scale-down behaviour",
      async () => {
        const hpas = await bed.api<{ items: { spec: { behavior?: { scaleDown?: { stabilizationWindowSeconds?: number } } } }[] }>(
          "GET",
          `/apis/autoscaling/v2/namespaces/${bed.ns}/horizontalpodautoscalers`,
        );
        return hpas.items.some((h) => h.spec.behavior?.scaleDown?.stabilizationWindowSeconds === 0);
      },
      60_000,
      500,
    );
    const redelivered0 = await bed.redeliveries();
    const terminated0 = bed.terminations();
    const t0 = Date.now();
    const watch = new Watch(t0);
    // 1,200 runs take the module to the max; then 10 runs/s (20 hops/s of 1 s: ~20 in flight, under one replica's lag of 50).
    const load = bed.startLoad({ burst: 1_200, runsPerTick: 1 });
    await waitUntil(`the module at ${MAX} replicas`, async () => watch.peak === MAX, SCALE_DEADLINE_MS, 500);
    await waitUntil(
      "the HPA removing a replica under the steady load (a deleted pod gone)",
      async () => watch.replicas < MAX && watch.gone.size > 0,
      SCALE_DEADLINE_MS,
      500,
    );
    const scaledInAt = Date.now();
    await Bun.sleep(20_000); // the load goes on at the replicas left (one more HPA sync may take another)
    await load.stop();
    await watch.stop();
    const counts = await bed.count(load);
    const redelivered = (await bed.redeliveries()) - redelivered0;
    // Hops the removed pods completed after their deletion was seen: they were running, or pulled, when KEDA's HPA scaled in.
    const lines = bed.journal();
    const afterDeletion = Object.fromEntries(
      [...watch.deletedAt].map(([pod, at]) => [pod, lines.filter((l) => l.pod === pod && l.at >= at && load.runs.has(l.runId)).length]),
    );
    const line =
      `[real-keda-burst] scale-in under load (1,200 runs, then 10 runs/s; ${HOLD_MS} ms per hop; HPA scale-down stabilization 0): ` +
      `peak ${watch.peak} replicas ${watch.peakAt - t0} ms after the load began; first scale-in seen ${scaledInAt - t0} ms after it, down to ${watch.lowAfterPeak} replicas; ` +
      `pods removed ${watch.deletedAt.size} with hops completed after their deletion ${JSON.stringify(afterDeletion)}; ` +
      `hops sent ${counts.sent}, completed ${counts.completed}, duplicated ${counts.duplicated}, lost ${counts.lost}; redeliveries ${redelivered}; terminated ${bed.terminations() - terminated0}; ` +
      `publish retries ${load.publishRetries}; hops by pod ${JSON.stringify(counts.byPod)}`;
    figures.push(line);
    console.error(line);
    const ranDuringScaleIn = Object.values(afterDeletion).reduce((a, b) => a + b, 0);
    expect({ scaledIn: watch.lowAfterPeak < MAX, ranDuringScaleIn: ranDuringScaleIn > 0, lost: counts.lost, duplicated: counts.duplicated }).toEqual({
      scaledIn: true,
      ranDuringScaleIn: true,
      lost: 0,
      duplicated: 0,
    });
    expect(counts.completed).toBe(counts.sent);
  }, 900_000);
});
