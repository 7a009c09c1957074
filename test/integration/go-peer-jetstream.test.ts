/**
 * The Go peer (the real Go SDK v0.13.125, test/go/peer) and `tinyhost run` in one flow over
 * JetStream (runtime-spec §4.4): `TINY_NATS_TRANSPORT=jetstream` on both, one private nats-server.
 * The shared behaviours are in test/support/go-peer-suite.ts; here also what only JetStream has:
 * the streams, consumers and KV bucket both modules create and use, and durable runs that cross
 * the two modules both ways.
 */
import { expect, test } from "bun:test";
import { jetstreamManager, type ConsumerInfo, type JetStreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connectNats } from "../../src/transport/nats/index.ts";
import { EDGE_STREAM, EXEC_BUCKET, sysConsumerName, SYSMSG_STREAM } from "../../src/transport/nats/names.ts";
import { mixedFlow } from "../support/go-peer.ts";
import { flowPrefix, nameOf, type MixedBed } from "../support/go-peer-bed.ts";
import { mixedModuleTests } from "../support/go-peer-suite.ts";

/** The settings of a consumer that must not depend on which runtime created it. */
function consumerSettings(info: ConsumerInfo, module: string) {
  const c = info.config;
  return {
    filter: c.filter_subject?.replace(module, "<module>"),
    deliver_policy: c.deliver_policy,
    ack_policy: c.ack_policy,
    ack_wait: c.ack_wait,
    max_deliver: c.max_deliver,
    max_ack_pending: c.max_ack_pending,
    replay_policy: c.replay_policy,
    inactive_threshold: c.inactive_threshold ?? 0,
  };
}

/** Stream configs of both streams and the ledger bucket, plus every consumer's settings. */
async function snapshot(jsm: JetStreamManager, b: MixedBed) {
  const stream = async (name: string) => (await jsm.streams.info(name)).config;
  const consumer = async (stream: string, name: string, module: string) => consumerSettings(await jsm.consumers.info(stream, name), module);
  return {
    edges: await stream(EDGE_STREAM),
    sysmsgs: await stream(SYSMSG_STREAM),
    kv: await stream(`KV_${EXEC_BUCKET}`),
    consumers: {
      goBusiness: await consumer(EDGE_STREAM, b.go.name, b.go.name),
      tinyhostBusiness: await consumer(EDGE_STREAM, b.th.name, b.th.name),
      goSystem: await consumer(SYSMSG_STREAM, sysConsumerName(b.go.name, b.go.pod), b.go.name),
      tinyhostSystem: await consumer(SYSMSG_STREAM, sysConsumerName(b.th.name, b.th.pod), b.th.name),
    },
  };
}

mixedModuleTests(
  "jetstream",
  {
    goSees: (text, code) => (code ? { error: `${code}: ${text}`, code } : { error: text }),
    tinyhostSees: (text, code) => ({ error: text, code }),
  },
  (bed) => {
    test("both modules use the same streams, ledger bucket and consumer settings, and a restart of either changes none of them", async () => {
      const b = bed();
      const nc = await connectNats(b.natsUrl!, { name: "go-peer-js-inspect" });
      try {
        const jsm = await jetstreamManager(nc);
        const first = await snapshot(jsm, b);
        expect(first.edges).toMatchObject({
          subjects: ["tinymodule.*.msg"],
          retention: "workqueue",
          storage: "file",
          max_age: 3_600_000_000_000,
          duplicate_window: 120_000_000_000,
        });
        expect(first.sysmsgs).toMatchObject({
          subjects: ["tinymodule.*.sysmsg"],
          retention: "limits",
          storage: "file",
          max_age: 3_600_000_000_000,
          duplicate_window: 120_000_000_000,
        });
        expect(first.kv).toMatchObject({ storage: "file", max_msgs_per_subject: 1 });
        // The consumer Go created for itself and the one tinyhost created are configured alike.
        expect(first.consumers.tinyhostBusiness).toEqual(first.consumers.goBusiness);
        expect(first.consumers.tinyhostSystem).toEqual(first.consumers.goSystem);
        expect(first.consumers.goBusiness).toEqual({
          filter: "tinymodule.<module>.msg",
          deliver_policy: "all",
          ack_policy: "explicit",
          ack_wait: 30_000_000_000,
          max_deliver: 3,
          max_ack_pending: 1000,
          replay_policy: "instant",
          inactive_threshold: 0,
        });
        expect(first.consumers.goSystem).toMatchObject({ filter: "tinymodule.<module>.sysmsg", deliver_policy: "new", inactive_threshold: 300_000_000_000 });
        // Each module re-ensures every stream and its consumers at start: neither undoes the other.
        await b.restart("tinyhost");
        expect(await snapshot(jsm, b)).toEqual(first);
        await b.restart("go");
        expect(await snapshot(jsm, b)).toEqual(first);
      } finally {
        await nc.close();
      }
    }, 180_000);

    test("a durable run minted by a Go node crosses go → tinyhost → go → tinyhost with one run id, and both modules write its step ledger", async () => {
      const b = bed();
      const p = flowPrefix();
      const d1 = b.go.node("relay", "d1", true);
      const d2 = b.th.node("relay", "d2");
      const d3 = b.go.node("relay", "d3");
      const d4 = b.th.node("sink", "d4");
      await b.apply(
        mixedFlow(
          b.ns,
          p,
          [d1, d2, d3, d4],
          [
            { from: d1, to: d2 },
            { from: d2, to: d3 },
            { from: d3, to: d4 },
          ],
        ),
      );
      await b.trigger(nameOf(p, d1), "in", { data: { order: 42 } });
      const last = await b.waitForRecord("the tinyhost sink at the end of the run", (r) => r.node === nameOf(p, d4));
      const runId = last.runId;
      expect(runId).toBeTruthy();
      const recs = await Promise.all([d1, d2, d3].map((n) => b.waitForRecord(`${nameOf(p, n)} ran`, (r) => r.node === nameOf(p, n))));
      expect(recs.map((r) => [r.runtime, r.runId, r.data])).toEqual([
        ["go", runId, { order: 42 }],
        ["tinyhost", runId, { order: 42 }],
        ["go", runId, { order: 42 }],
      ]);
      expect(last).toMatchObject({ runtime: "tinyhost", data: { order: 42 } });
      // Durable emits are fire-and-forget: no sender waited for a reply, none failed.
      for (const r of recs) expect([r.reply, r.error]).toEqual([undefined, undefined]);

      // The step ledger (KV TINY_EXEC, `exec/<run>/step/<stepKey>`) holds a record of each step,
      // written by the module that ran it.
      const nc = await connectNats(b.natsUrl!, { name: "go-peer-js-ledger" });
      try {
        const kv = await new Kvm(nc).open(EXEC_BUCKET);
        const nodes = new Set<string>();
        const want = [d1, d2, d3, d4].map((n) => nameOf(p, n)).sort();
        const deadline = Date.now() + 30_000;
        while (nodes.size < want.length && Date.now() < deadline) {
          // Keys hold `/`, not subject tokens, so filter by prefix here (as Go's List does).
          for await (const key of await kv.keys()) {
            if (!key.startsWith(`exec/${runId}/step/`)) continue;
            const e = await kv.get(key);
            if (e && e.length > 0) nodes.add((e.json() as { node: string }).node);
          }
          if (nodes.size < want.length) await Bun.sleep(200);
        }
        expect([...nodes].sort()).toEqual(want);
      } finally {
        await nc.close();
      }
    }, 120_000);

    test("a core-NATS module sending to a JetStream module is answered by the stream's PubAck: Go takes it as the reply, tinyhost fails the hop naming the mismatch", async () => {
      const b = bed();
      const [goCore, thCore] = await Promise.all([
        b.spawnGo({ name: "go-jsc", hostname: "go-jsc-0", wire: "core" }),
        b.spawnTinyhost({ name: "th-jsc", hostname: "th-jsc-0", wire: "core" }),
      ]);
      try {
        const p = flowPrefix();
        const goRelay = goCore.node("relay", "m");
        const thEcho = b.th.node("echo", "m");
        const thRelay = thCore.node("relay", "m");
        const goEcho = b.go.node("echo", "m");
        await b.apply(
          mixedFlow(
            b.ns,
            p,
            [goRelay, thEcho, thRelay, goEcho],
            [
              { from: goRelay, to: thEcho },
              { from: thRelay, to: goEcho },
            ],
          ),
        );
        await b.trigger(nameOf(p, goRelay), "in", { data: "from go" });
        await b.trigger(nameOf(p, thRelay), "in", { data: "from tinyhost" });
        // The message is stored and the JetStream module handles it (nobody gets its reply) …
        await b.waitForRecord("the tinyhost echo handled the Go core hop", (r) => r.node === nameOf(p, thEcho));
        await b.waitForRecord("the Go echo handled the tinyhost core hop", (r) => r.node === nameOf(p, goEcho));
        // … while the core request was answered by the server's stream acknowledgement (runtime-spec §4.5).
        const goSaw = await b.waitForRecord("the Go core relay's outcome", (r) => r.node === nameOf(p, goRelay));
        expect(goSaw.error).toBeUndefined();
        expect(goSaw.reply).toMatchObject({ stream: "module-edges", seq: expect.any(Number) });
        const thSaw = await b.waitForRecord("the tinyhost core relay's outcome", (r) => r.node === nameOf(p, thRelay));
        expect(thSaw.reply).toBeUndefined();
        expect(thSaw.error).toContain(`nats request to tinymodule.${b.go.name}.msg: answered by JetStream stream module-edges`);
        expect(thSaw.error).toContain("TINY_NATS_TRANSPORT=jetstream");
      } finally {
        await Promise.all([goCore.proc.stop(9000), thCore.proc.stop(9000)]);
      }
    }, 180_000);
  },
);
