/**
 * The mixed-module tests every wire runs (test/integration/go-peer-{core,jetstream,grpc}.test.ts):
 * the Go peer and tinyhost in one flow, each behaviour in both directions — `go → tinyhost` and
 * `tinyhost → go`. What one runtime sends the other must read exactly as a module of its own kind
 * would, so each test checks what the receiving component (Go's or ours) recorded.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mixedFlow, type MixedNodeSpec, type PeerRecord, type Wire } from "./go-peer.ts";
import type { ReceivedSpan } from "./otlp-receiver.ts";
import { waitUntil } from "./process.ts";
import { flowPrefix, nameOf, openMixedBed, type BedModule, type MixedBed } from "./go-peer-bed.ts";

/** Per-wire expectations that differ by what Go does on that wire. */
export interface SuiteOptions {
  /**
   * What a Go sender reports for an error reply from tinyhost whose text is `text` (a coded one
   * starts `"<code>: "`): over NATS Go rebuilds `NonRetryable(code, text)` and so prefixes the code
   * twice (runtime-spec §16 item 18); over gRPC it sees `rpc error: code = Unknown desc = <text>`.
   */
  goSees: (text: string, code?: string) => { error: string; code?: string };
  /** What tinyhost reports for the same reply from Go: over NATS the code travels, over gRPC only the text. */
  tinyhostSees: (text: string, code?: string) => { error: string; code?: string };
}

const RUNTIMES = [
  ["go", "tinyhost"],
  ["tinyhost", "go"],
] as const;

/** Registers the shared mixed-module tests for `wire` (one bed for the file). */
export function mixedModuleTests(wire: Wire, o: SuiteOptions, extra?: (bed: () => MixedBed) => void): void {
  let bed: MixedBed;
  beforeAll(async () => {
    bed = await openMixedBed(wire, wire === "jetstream" ? "js" : wire);
  }, 240_000);
  afterAll(async () => {
    await bed?.stop();
  });

  const on = (runtime: "go" | "tinyhost"): BedModule => bed.module(runtime);

  describe(`Go peer and tinyhost over ${wire}`, () => {
    for (const [a, b] of RUNTIMES) {
      test(`${a} → ${b}: the edge configuration is evaluated by the target's runtime (${b})`, async () => {
        const p = flowPrefix();
        const relay = on(a).node("relay", "a");
        const sink = on(b).node("sink", "b");
        const configuration = { data: { sum: "{{$.data.a + $.data.b}}", name: "{{$.data.name}}", fixed: "static", whole: "{{$.data}}" } };
        await bed.apply(mixedFlow(bed.ns, p, [relay, sink], [{ from: relay, to: sink, configuration }]));
        await bed.trigger(nameOf(p, relay), "in", { data: { a: 2, b: 3, name: "x" } });
        const got = await bed.waitForRecord(`${b} sink got the hop`, (r) => r.node === nameOf(p, sink));
        expect(got.runtime).toBe(b);
        expect(got.data).toEqual({ sum: 5, name: "x", fixed: "static", whole: { a: 2, b: 3, name: "x" } });
        // The sender saw the sink's empty reply as "no value", not as an error.
        const sent = await bed.waitForRecord(`${a} relay's outcome`, (r) => r.node === nameOf(p, relay));
        expect(sent).toMatchObject({ runtime: a, data: { a: 2, b: 3, name: "x" } });
        expect(sent.error).toBeUndefined();
        expect(sent.reply).toBeUndefined();
      }, 90_000);

      test(`${a} → ${b} → ${a}: a blocking reply travels back through both modules`, async () => {
        const p = flowPrefix();
        const first = on(a).node("relay", "1");
        const middle = on(b).node("relay", "2");
        const echo = on(a).node("echo", "3");
        await bed.apply(
          mixedFlow(
            bed.ns,
            p,
            [first, middle, echo],
            [
              { from: first, to: middle },
              { from: middle, to: echo },
            ],
          ),
        );
        await bed.trigger(nameOf(p, first), "in", { data: { q: "ping", n: 7 } });
        const reply = { echo: { q: "ping", n: 7 }, runtime: a, node: nameOf(p, echo) };
        const mid = await bed.waitForRecord(`${b} relay got the echo`, (r) => r.node === nameOf(p, middle));
        expect(mid).toMatchObject({ runtime: b, data: { q: "ping", n: 7 }, reply });
        const top = await bed.waitForRecord(`${a} relay got the echo back`, (r) => r.node === nameOf(p, first));
        expect(top).toMatchObject({ runtime: a, reply });
        expect(top.error).toBeUndefined();
      }, 90_000);

      test(`${a} → ${b}: an error reply (coded and plain) reaches ${a} with its text`, async () => {
        const p = flowPrefix();
        const coded = on(a).node("relay", "c");
        const plain = on(a).node("relay", "p");
        const fail = on(b).node("fail", "f");
        await bed.apply(
          mixedFlow(
            bed.ns,
            p,
            [coded, plain, fail],
            [
              { from: coded, to: fail, configuration: { data: "{{$.data}}", code: "E_PEER" } },
              { from: plain, to: fail, configuration: { data: "{{$.data}}" } },
            ],
          ),
        );
        await bed.trigger(nameOf(p, coded), "in", { data: "boom" });
        await bed.trigger(nameOf(p, plain), "in", { data: "bang" });
        const c = await bed.waitForRecord(`${a} relay saw the coded error`, (r) => r.node === nameOf(p, coded));
        const sees = a === "go" ? o.goSees : o.tinyhostSees;
        expect({ error: c.error, code: c.code }).toEqual(withCode(sees("E_PEER: fail: refused boom", "E_PEER")));
        const pl = await bed.waitForRecord(`${a} relay saw the plain error`, (r) => r.node === nameOf(p, plain));
        expect({ error: pl.error, code: pl.code }).toEqual(withCode(sees("fail: refused bang")));
        expect(pl.reply).toBeUndefined();
      }, 90_000);

      test(`${a} → ${b} → ${a}: the hops of one chain share one trace, exported by both modules`, async () => {
        const p = flowPrefix();
        const first = on(a).node("relay", "t1");
        const middle = on(b).node("relay", "t2");
        const last = on(a).node("sink", "t3");
        await bed.apply(
          mixedFlow(
            bed.ns,
            p,
            [first, middle, last],
            [
              { from: first, to: middle },
              { from: middle, to: last },
            ],
          ),
        );
        await bed.trigger(nameOf(p, first), "in", { data: { t: 1 } });
        const recs: PeerRecord[] = [];
        for (const n of [first, middle, last]) recs.push(await bed.waitForRecord(`${nameOf(p, n)} ran`, (r) => r.node === nameOf(p, n)));
        const traceId = recs[0]!.traceId;
        expect(traceId).toMatch(/^[0-9a-f]{32}$/);
        expect(recs.map((r) => r.traceId)).toEqual([traceId, traceId, traceId]);
        // Both modules exported spans of that trace to the one receiver.
        const spansOf = (service: string) => bed.otlp.spans.filter((s) => s.traceId === traceId && s.service === service);
        await expectEventually(`spans of trace ${traceId} from both modules`, () => spansOf(bed.go.name).length > 0 && spansOf(bed.th.name).length > 0);
        // The input span of the middle hop hangs under a span of the first module (over gRPC through
        // the Go side's otelgrpc client or server span). Spans arrive in batches (every 500 ms).
        const middleInput = () => bed.otlp.spans.find((s) => s.traceId === traceId && s.attributes.to === `${nameOf(p, middle)}:in`);
        await expectEventually("the middle hop's input span and its parent from the other module", () => {
          const m = middleInput();
          return m !== undefined && firstForeignAncestor(bed, m) !== undefined;
        });
        expect(middleInput()!.service).toBe(on(b).name);
        expect(firstForeignAncestor(bed, middleInput()!)!.service).toBe(on(a).name);
      }, 90_000);
    }

    for (const [a, b] of RUNTIMES) {
      test(`${a} ⇄ ${b}: a cycle across both modules is stopped by the hop-depth guard (256), and the error climbs back to the first node`, async () => {
        const p = flowPrefix();
        const x = on(a).node("relay", "x");
        const y = on(b).node("relay", "y");
        await bed.apply(
          mixedFlow(
            bed.ns,
            p,
            [x, y],
            [
              { from: x, to: y },
              { from: y, to: x },
            ],
          ),
        );
        await bed.trigger(nameOf(p, x), "in", { data: "loop" });
        // Depth 0…256 ran (x at even depths, y at odd), the hop at depth 257 (to y) was refused; each
        // relay records when its downstream returned, the first node last.
        await expectEventually("all 257 relays returned", () => countRuns(bed, p, x) + countRuns(bed, p, y) >= 257, 120_000);
        expect([countRuns(bed, p, x), countRuns(bed, p, y)]).toEqual([129, 128]);
        const runs = bed.records().filter((r) => r.node === nameOf(p, x) || r.node === nameOf(p, y));
        for (const r of runs) expect(r.error ?? "").toContain("max message depth 256 exceeded (possible cycle in flow graph)");
      }, 180_000);
    }

    if (wire !== "grpc") {
      for (const [a, b] of RUNTIMES) {
        test(`${a}: a _control on .sysmsg reaches the leader, and what it emits crosses to ${b}`, async () => {
          const p = flowPrefix();
          const ctl = on(a).node("controller", "k");
          const sink = on(b).node("sink", "s");
          await bed.apply(mixedFlow(bed.ns, p, [ctl, sink], [{ from: ctl, to: sink }]));
          await bed.trigger(nameOf(p, ctl), "_control", { send: true, data: { go: "now" } });
          const c = await bed.waitForRecord(`${a} controller got _control`, (r) => r.node === nameOf(p, ctl));
          expect(c).toMatchObject({ runtime: a, port: "_control", leader: true, data: { go: "now" } });
          const s = await bed.waitForRecord(`${b} sink got the emit`, (r) => r.node === nameOf(p, sink));
          expect(s).toMatchObject({ runtime: b, data: { go: "now" } });
        }, 90_000);
      }
    }

    extra?.(() => bed);

    if (wire !== "grpc") {
      // Last: the extra replica serves the Go module's nodes until it stops.
      test("one module served by a Go pod and a tinyhost pod: one Lease (exactly one acts on a _control), and hops reach both", async () => {
        const replica = await bed.spawnTinyhost({ name: bed.go.name, hostname: `${bed.go.name}-th` });
        try {
          const p = flowPrefix();
          const ctl = bed.go.node("controller", "r");
          const sink = bed.th.node("sink", "r");
          const front = bed.th.node("relay", "r");
          const echo = bed.go.node("echo", "r");
          await bed.apply(
            mixedFlow(
              bed.ns,
              p,
              [ctl, sink, front, echo],
              [
                { from: ctl, to: sink },
                { from: front, to: echo },
              ],
            ),
          );
          // Both pods run the Go module's nodes; wait until the replica has them too (it reconciles as a follower).
          await waitUntil(
            "the tinyhost replica runs the Go module's two nodes",
            async () => ((await replica.proc.metric("tinyhost_runners")) ?? 0) >= 2,
            30_000,
            200,
          );
          await bed.trigger(nameOf(p, ctl), "_control", { send: true, data: { once: true } });
          await expectEventually("both pods saw the _control", () => bed.records().filter((r) => r.node === nameOf(p, ctl)).length >= 2);
          const seen = bed
            .records()
            .filter((r) => r.node === nameOf(p, ctl))
            .map((r) => ({ runtime: r.runtime, leader: r.leader }));
          expect(seen.filter((r) => r.leader).length).toBe(1);
          expect(new Set(seen.map((r) => r.runtime))).toEqual(new Set(["go", "tinyhost"]));
          await bed.waitForRecord("the one emit reached the sink", (r) => r.node === nameOf(p, sink));
          await Bun.sleep(1000);
          expect(bed.records().filter((r) => r.node === nameOf(p, sink)).length).toBe(1);

          const N = 20;
          for (let i = 0; i < N; i++) await bed.trigger(nameOf(p, front), "in", { data: { i } });
          await expectEventually(`${N} replies at the relay`, () => bed.records().filter((r) => r.node === nameOf(p, front)).length >= N, 60_000);
          const echoes = bed.records().filter((r) => r.node === nameOf(p, echo));
          expect(echoes.map((r) => (r.data as { i: number }).i).sort((x, y) => x - y)).toEqual(Array.from({ length: N }, (_, i) => i));
          expect(
            bed
              .records()
              .filter((r) => r.node === nameOf(p, front))
              .every((r) => r.error === undefined),
          ).toBe(true);
          if (wire === "core") {
            // One queue group (the module name) across both runtimes: NATS spreads the hops over both.
            expect(new Set(echoes.map((r) => r.runtime))).toEqual(new Set(["go", "tinyhost"]));
          }
        } finally {
          await replica.proc.stop(9000);
        }
      }, 180_000);
    }
  });
}

/** How many times node `n` of flow `p` recorded a run. */
function countRuns(bed: MixedBed, p: string, n: MixedNodeSpec): number {
  return bed.records().filter((r) => r.node === nameOf(p, n)).length;
}

/** The nearest ancestor of `span` exported by another service (it may take a moment to arrive). */
function firstForeignAncestor(bed: MixedBed, span: ReceivedSpan): ReceivedSpan | undefined {
  let cur: ReceivedSpan | undefined = span;
  for (let i = 0; cur && i < 32; i++) {
    const parentId: string = cur.parentSpanId;
    cur = bed.otlp.spans.find((x) => x.spanId === parentId);
    if (cur && cur.service !== span.service) return cur;
  }
  return undefined;
}

/** `{error, code}` with `code: undefined` spelled out, to compare with a record. */
function withCode(x: { error: string; code?: string }): { error: string; code: string | undefined } {
  return { error: x.error, code: x.code };
}

/**
 * Polls `check` (generous: the machine is shared) until it is true.
 * @throws Error naming `what` after 30 s.
 */
export async function expectEventually(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return;
    await Bun.sleep(100);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
