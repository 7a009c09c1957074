/**
 * End to end: the tick-count example (components.md §5 Flow B, examples/tick-count) on two
 * `tinyhost run` processes of module `tinyhost` over core NATS. `send_signal` `{"start": true}` to
 * the ticker's `_control` starts the leader's loop; the counter keeps `_state/count` in node
 * metadata (base64 of the decimal count, runtime-spec §4.6, §14.6); the debug node shows each tick.
 * Then the leader is SIGKILLed: after the Lease expires the other process leads, its reconcile
 * resumes the ticker from `ticker-running`/`ticker-config` (components.md §1.15), and the counter
 * continues from the persisted count — never back to 0.
 *
 * Lease timings are shortened (3 s / 2 s / 0.5 s, the TINYHOST_LEASE_* knobs) to keep the takeover
 * inside the time budget; the default-timing takeover is covered by operator-leader.test.ts.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { KubeClient } from "../../src/k8s/client/index.ts";
import { decodeBase64Json } from "../../src/core/api/bytes.ts";
import { tinyNodes } from "../../src/k8s/controllers/index.ts";
import type { ControlPlane } from "../support/control-plane.ts";
import { openClusterFixture } from "../support/cluster-fixture.ts";
import { applyObjects, exampleObjects, nodeMetadata, nodesByComponent, sendSignal, waitForReconciled } from "../support/flows.ts";
import { startModuleProcess, type ModuleProcess } from "../support/module-process.ts";
import { waitUntil } from "../support/process.ts";

const MODULE = "tinyhost";
const LEADER_SERIES = `leader_election_master_status{name="${MODULE}-lock"}`;
const LEASE_ENV = { TINYHOST_LEASE_DURATION_MS: "3000", TINYHOST_RENEW_DEADLINE_MS: "2000", TINYHOST_RETRY_PERIOD_MS: "500" };

let cp: ControlPlane;
let kube: KubeClient;
let dir: string;
const procs: ModuleProcess[] = [];

beforeAll(async () => {
  ({ cp, kube, dir } = await openClusterFixture("e2e-tick"));
}, 900_000);

afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop(9000)));
});

/** The persisted count: `status.metadata["_state/count"]` decoded (base64 → decimal text), or undefined. */
async function persistedCount(ns: string, counter: string): Promise<number | undefined> {
  const raw = (await nodeMetadata(kube, ns, counter))["_state/count"];
  return raw === undefined ? undefined : Number(Buffer.from(raw, "base64").toString("utf8"));
}

/** The debug node's `_control` context as the leader last wrote it. */
async function debugShows(ns: string, debug: string): Promise<{ count?: number; source?: string; line?: string } | undefined> {
  const node = await kube.get(tinyNodes, debug, ns);
  const control = node.status?.ports?.find((p) => p.name === "_control")?.configuration;
  return control
    ? ((decodeBase64Json(control, "_control") as { context?: { count?: number; source?: string; line?: string } }).context ?? undefined)
    : undefined;
}

test("tick-count on two replicas: the count lives in _state/count and continues on the new leader after SIGKILL, never reset", async () => {
  const t0 = performance.now();
  const ns = await cp.newNamespace("e2e-tick");
  const natsUrl = process.env.TINYHOST_TEST_NATS_URL;
  if (!natsUrl) throw new Error("TINYHOST_TEST_NATS_URL is not set: run through test/support/run-integration.ts");
  const start = (hostname: string) =>
    startModuleProcess({
      hostname,
      name: MODULE,
      namespace: ns,
      kubeconfig: cp.tokenKubeconfig,
      components: "components",
      env: { TINY_NATS_URL: natsUrl, ...LEASE_ENV },
      logDir: dir,
    });
  const a = await start(`${ns}-pod-0`);
  procs.push(a);
  await waitUntil("pod-0 leads", async () => (await a.metric(LEADER_SERIES)) === 1, 10_000);
  const b = await start(`${ns}-pod-1`);
  procs.push(b);

  const objects = exampleObjects("tick-count", ns);
  await applyObjects(kube, ns, objects);
  const names = nodesByComponent(objects);
  await waitForReconciled(kube, ns, Object.values(names));
  await sendSignal(natsUrl, names.ticker!, "_control", { start: true });

  await waitUntil("the counter persisted 3", async () => ((await persistedCount(ns, names.counter!)) ?? 0) >= 3, 15_000, 100);
  const tickerMd = await nodeMetadata(kube, ns, names.ticker!);
  expect(tickerMd["ticker-running"]).toBe("true");
  expect(JSON.parse(tickerMd["ticker-config"]!)).toEqual({ context: { source: "ticker" }, delay: 1000 });
  await waitUntil("debug shows a tick", async () => ((await debugShows(ns, names.debug!))?.count ?? 0) >= 1, 10_000);
  const shown = (await debugShows(ns, names.debug!))!;
  expect(shown.source).toBe("ticker");
  expect(shown.line).toBe(`tick #${shown.count}`);
  expect(await b.metric(LEADER_SERIES)).toBe(0);

  const atKill = (await persistedCount(ns, names.counter!))!;
  const tKill = performance.now();
  await a.kill();
  await waitUntil("pod-1 leads", async () => (await b.metric(LEADER_SERIES)) === 1, 15_000, 50);
  const tLead = performance.now();

  // Sample the persisted count until it grew 3 past the kill; no sample may fall below it.
  const samples: number[] = [];
  await waitUntil(
    "the count grows on the new leader",
    async () => {
      const c = await persistedCount(ns, names.counter!);
      if (c !== undefined) samples.push(c);
      return c !== undefined && c >= atKill + 3;
    },
    20_000,
    100,
  );
  const tGrown = performance.now();
  expect(Math.min(...samples)).toBeGreaterThanOrEqual(atKill);
  await waitUntil("debug shows a tick past the kill", async () => ((await debugShows(ns, names.debug!))?.count ?? 0) > atKill, 10_000);

  const ms = (x: number, y: number) => Math.round(y - x);
  console.log(
    `[e2e-tick] count ${atKill} at SIGKILL after ${ms(t0, tKill)} ms; new leader after ${ms(tKill, tLead)} ms; count ${samples.at(-1)} ${ms(tLead, tGrown)} ms later (min sample ${Math.min(...samples)})`,
  );
}, 90_000);
