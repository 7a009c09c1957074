/**
 * A reload (a node's component replaced: a component file, TinyComponent or registry change) drains:
 * the old version's in-flight hops finish within the grace while new hops wait for the new
 * version; what is still running after the grace is cut with a retryable NODE_RELOADED error, so a
 * durable step is left unrecorded (to run again) instead of being recorded failed.
 */
import { expect, test } from "bun:test";
import { defineComponent, ok, target, Type } from "tinyhost";
import { shouldRetry } from "../../../src/core/errors.ts";
import { Scheduler } from "../../../src/runtime/scheduler/index.ts";
import { makeNode, MODULE, nodeName } from "../../support/fake-components.ts";
import { until as poll } from "../../support/until.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

/** Hops of `slow` wait for this gate (or for their node's stop). */
let gate = Promise.withResolvers<void>();
const started: number[] = [];

function version(v: number) {
  return defineComponent({
    info: { name: "slow", description: "Slow", info: `version ${v}` },
    ports: () => [target("in", Type.Object({ n: Type.Number() }), { default: { n: 0 } })],
    handle: async (ctx, _o, _p, data) => {
      started.push(v);
      await Promise.race([gate.promise, new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason)))]);
      return ok({ v, n: data.n });
    },
  });
}

const send = (s: Scheduler, n: number) => s.handle({ edgeId: "", from: "signal", to: `${nodeName("a")}:in`, data: { n }, depth: 0 });

/** This file's timeout and poll interval. */
const until = (what: string, check: () => boolean) => poll(what, check, 5000, 5);

test("in-flight hops of the old version finish; hops arriving during the reload run on the new version", async () => {
  gate = Promise.withResolvers<void>();
  started.length = 0;
  const s = new Scheduler({ module: MODULE, reloadGraceMs: 5000 });
  s.install(version(1));
  await s.update(makeNode("a", "slow"));
  const first = send(s, 1);
  await until("the first hop to start", () => started.length === 1);
  s.install(version(2));
  const reload = s.update(makeNode("a", "slow"));
  const second = send(s, 2); // arrives while the old version drains
  await Bun.sleep(50);
  expect(started).toEqual([1]); // the second hop waits for the new version
  gate.resolve();
  expect(await first).toEqual({ kind: "ok", value: { v: 1, n: 1 } });
  await reload;
  expect(await second).toEqual({ kind: "ok", value: { v: 2, n: 2 } });
  expect(s.runner(nodeName("a"))!.instance.definition.info.info).toBe("version 2");
});

test("a hop still running after the grace is cut with a retryable NODE_RELOADED error naming the node and the grace", async () => {
  gate = Promise.withResolvers<void>();
  started.length = 0;
  const s = new Scheduler({ module: MODULE, reloadGraceMs: 50 });
  s.install(version(1));
  await s.update(makeNode("a", "slow"));
  const first = send(s, 1);
  await until("the first hop to start", () => started.length === 1);
  s.install(version(2));
  await s.update(makeNode("a", "slow"));
  const r = await first;
  expect(r.kind).toBe("fail");
  if (r.kind !== "fail") return;
  expect(shouldRetry(r.error)).toBe(true);
  expect((r.error.cause as { code?: string } | undefined)?.code).toBe("NODE_RELOADED"); // wrapped retryable
  expect(r.error.message).toContain(`node ${nodeName("a")} was reloaded (component slow changed) and this hop did not finish within the 50 ms reload grace`);
  gate.resolve();
});

test("a durable step cut by a reload is not recorded failed: it is left to run again", async () => {
  gate = Promise.withResolvers<void>();
  started.length = 0;
  const s = new Scheduler({ module: MODULE, reloadGraceMs: 50 });
  s.install(version(1));
  const node = makeNode("a", "slow", { labels: { "tinysystems.io/execution-mode": "durable" } });
  await s.update(node);
  const first = send(s, 1);
  await until("the first hop to start", () => started.length === 1);
  s.install(version(2));
  await s.update(node);
  const r = await first;
  expect(r.kind).toBe("fail");
  expect(s.durableStats.minted).toBe(1);
  expect(s.durableStats.retryable).toBe(1); // not recorded: a retry runs it on the new version
  expect(s.durableStats.recorded).toBe(0);
  gate.resolve();
});
