/**
 * The Go peer (the real Go SDK v0.13.125, test/go/peer) and `tinyhost run` in one flow over the
 * gRPC fallback (runtime-spec §4.7): no TINY_NATS_URL on either, each finds the other through its
 * TinyModule `status.addr`. The shared behaviours are in test/support/go-peer-suite.ts; here also
 * what differs on this wire: the leader flag of a `_control` message.
 */
import { expect, test } from "bun:test";
import { mixedFlow } from "../support/go-peer.ts";
import { busyRefusalThroughGo, flowPrefix, nameOf } from "../support/go-peer-bed.ts";
import { mixedModuleTests } from "../support/go-peer-suite.ts";

mixedModuleTests(
  "grpc",
  {
    // Go's client error is the status error's text; no code travels on this wire (runtime-spec §4.7).
    goSees: (text) => ({ error: `rpc error: code = Unknown desc = ${text}` }),
    // Go's server answers a handler error with status UNKNOWN and the text alone (no x-error-code trailer).
    tinyhostSees: (text) => ({ error: text }),
  },
  (bed) => {
    test("a _control over gRPC: Go's server puts no leader flag on it, so the Go controller does nothing (runtime-spec §17)", async () => {
      const b = bed();
      const p = flowPrefix();
      const ctl = b.go.node("controller", "g");
      const sink = b.th.node("sink", "g");
      await b.apply(mixedFlow(b.ns, p, [ctl, sink], [{ from: ctl, to: sink }]));
      await b.trigger(nameOf(p, ctl), "_control", { send: true, data: { via: "grpc" } });
      const c = await b.waitForRecord("go controller got _control", (r) => r.node === nameOf(p, ctl));
      expect(c).toMatchObject({ runtime: "go", leader: false, data: { via: "grpc" } });
      await Bun.sleep(1000);
      expect(b.records().filter((r) => r.node === nameOf(p, sink))).toEqual([]);
    }, 90_000);

    test("a _control over gRPC reaches tinyhost's leader with its live leader flag, and its emit crosses to Go", async () => {
      const b = bed();
      const p = flowPrefix();
      const ctl = b.th.node("controller", "t");
      const sink = b.go.node("sink", "t");
      await b.apply(mixedFlow(b.ns, p, [ctl, sink], [{ from: ctl, to: sink }]));
      await b.trigger(nameOf(p, ctl), "_control", { send: true, data: { via: "grpc" } });
      const c = await b.waitForRecord("tinyhost controller got _control", (r) => r.node === nameOf(p, ctl));
      expect(c).toMatchObject({ runtime: "tinyhost", leader: true, data: { via: "grpc" } });
      const s = await b.waitForRecord("go sink got the emit", (r) => r.node === nameOf(p, sink));
      expect(s).toMatchObject({ runtime: "go", data: { via: "grpc" } });
    }, 90_000);

    test("tinyhost's BUSY refusal reaches a Go sender as a plain error; relayed back by Go it is no longer a refusal (docs/compatibility.md ## gRPC)", async () => {
      const b = bed();
      const { first, echo, mid } = await busyRefusalThroughGo(b);
      // Go's client hands the status error on as is and ignores the x-error-code / x-refused trailers.
      expect(mid.runtime).toBe("go");
      expect(mid.error).toStartWith(`rpc error: code = Unknown desc = BUSY: module busy: 1 hops running, hop to "${echo}:in" refused`);
      expect(mid.code).toBeUndefined();
      // Go's server passes the status of the error its handler returned on (desc only, no trailers):
      // tinyhost's relay gets the refusal text without code or mark — a plain error, not retried.
      const top = await b.waitForRecord("tinyhost relay got Go's error", (r) => r.node === first);
      expect({ runtime: top.runtime, error: top.error, code: top.code }).toEqual({
        runtime: "tinyhost",
        error: mid.error!.replace("rpc error: code = Unknown desc = ", ""),
        code: undefined,
      });
      expect(b.records().filter((r) => r.node === echo)).toEqual([]); // the refused hop never ran
    }, 120_000);
  },
);
