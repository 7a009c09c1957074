import { describe, expect, test } from "bun:test";
import type { SSEStreamingApi } from "hono/streaming";
import { HopHistory, hopEvent } from "../../../src/console/history.ts";
import { MAX_PENDING, StreamClient } from "../../../src/console/stream.ts";
import type { HopRecord } from "../../../src/local/hop-watch.ts";

const rec = (node = "a"): HopRecord => ({
  node,
  port: "in",
  from: "signal",
  edgeId: "",
  data: "1",
  result: { kind: "empty" },
  error: undefined,
  expressionErrors: [],
  startedAt: 0,
  durationMs: 0,
});

/** A stream that records what is written and closes after `writes` SSE events. */
function fakeStream(writes: number) {
  const events: { event?: string; data: string }[] = [];
  const s = {
    aborted: false,
    closed: false,
    onAbort() {},
    async writeSSE(m: { event?: string; data: string }) {
      events.push(m);
      if (events.length >= writes) s.closed = true;
    },
    async write() {},
    sleep: (ms: number) => Bun.sleep(Math.min(ms, 5)),
  };
  return { events, stream: s as unknown as SSEStreamingApi };
}

describe("StreamClient", () => {
  test("a page that reads too slowly gets at most MAX_PENDING hops queued and a count of the rest, never silently", async () => {
    const c = new StreamClient({}, 0);
    for (let i = 1; i <= MAX_PENDING + 25; i++) c.push(hopEvent(rec(), i));
    const { events, stream } = fakeStream(3);
    await c.run(stream, () => ({ module: "m", nodes: [], edges: [] }), new HopHistory());
    expect(events.map((e) => e.event)).toEqual(["flow", "hops", "skipped"]);
    expect(JSON.parse(events[1]!.data)).toHaveLength(MAX_PENDING);
    expect(JSON.parse(events[2]!.data)).toEqual({ count: 25 });
  });

  test("a reconnect past the history's oldest hop is told how many it missed", async () => {
    const history = new HopHistory(2);
    for (let i = 0; i < 6; i++) history.add(rec()); // keeps 5 and 6
    const c = new StreamClient({}, 2); // the page saw up to 2: 3 and 4 are gone
    const { events, stream } = fakeStream(3);
    await c.run(stream, () => ({ module: "m", nodes: [], edges: [] }), history);
    expect(events.map((e) => e.event)).toEqual(["flow", "hops", "skipped"]);
    expect((JSON.parse(events[1]!.data) as { seq: number }[]).map((h) => h.seq)).toEqual([5, 6]);
    expect(JSON.parse(events[2]!.data)).toEqual({ count: 2 });
  });

  test("hops outside the page's filter are not queued", () => {
    const c = new StreamClient({ node: "b" }, 0);
    c.push(hopEvent(rec("a"), 1));
    c.push(hopEvent(rec("b"), 2));
    const { events, stream } = fakeStream(2);
    return c
      .run(stream, () => ({ module: "m", nodes: [], edges: [] }), new HopHistory())
      .then(() => {
        expect((JSON.parse(events[1]!.data) as { seq: number }[]).map((h) => h.seq)).toEqual([2]);
      });
  });
});
