import { describe, expect, test } from "bun:test";
import { LocalHostEvents } from "../../../src/local/host-events.ts";
import { StartSignals } from "../../../src/local/start-signals.ts";
import { START_SIGNAL_ANNOTATION } from "../../../src/local/constants.ts";
import type { NodeManifest } from "../../../src/local/manifests.ts";
import { empty, fail, type Result } from "../../../src/core/result.ts";
import type { TinyNode } from "../../../src/core/node.ts";

function manifest(name: string, signal: string | undefined): NodeManifest {
  const node = {
    apiVersion: "operator.tinysystems.io/v1alpha1",
    kind: "TinyNode",
    metadata: { name, ...(signal !== undefined ? { annotations: { [START_SIGNAL_ANNOTATION]: signal } } : {}) },
    spec: { module: "m", component: "c" },
  } as unknown as TinyNode;
  return { node, file: "flow.yaml", line: 1 } as NodeManifest;
}

function setup() {
  const events = new LocalHostEvents();
  const desired = new Map<string, NodeManifest>();
  const sent: string[] = [];
  const lines: string[] = [];
  const failed: string[] = [];
  let answer: Result = empty;
  const signals = new StartSignals({
    events,
    desired: () => desired,
    runs: () => true,
    send: async (node, port, data) => (sent.push(`${node}:${port} ${JSON.stringify(data)}`), answer),
    failed: (node, error) => failed.push(`${node}: ${error.message}`),
    line: (l) => lines.push(l),
    quiet: async () => {},
    stopped: () => false,
  });
  return { events, desired, sent, lines, failed, signals, answerWith: (r: Result) => (answer = r) };
}

describe("start signals (subscribed to the host's events)", () => {
  test("nothing is sent before the runnable opens them; then each node's value once, and readiness follows", async () => {
    const t = setup();
    t.desired.set("a", manifest("a", '{"go":1}'));
    t.desired.set("b", manifest("b", undefined));
    t.events.emit("reconciled", "a");
    expect(t.sent).toEqual([]);
    expect(t.signals.ready).toBe(false);
    await t.signals.runnable(async () => {}).start!({ fatal: () => {} });
    expect(t.sent).toEqual(['a:_control {"go":1}']);
    expect(t.signals.ready).toBe(true);
    t.events.emit("reconciled", "a"); // the same value again: not re-sent
    expect(t.sent).toHaveLength(1);
  });

  test("a value changed by a read is sent after the changes settle; a removed node's value is forgotten", async () => {
    const t = setup();
    t.desired.set("a", manifest("a", "1"));
    await t.signals.runnable(async () => {}).start!({ fatal: () => {} });
    t.desired.set("a", manifest("a", "2"));
    t.events.emit("read", { nodes: t.desired } as never, { added: [], changed: ["a"], removed: [] });
    await Bun.sleep(0);
    expect(t.sent).toEqual(["a:_control 1", "a:_control 2"]);
    t.events.emit("nodeChanged", { name: "a", before: manifest("a", "2").node, after: undefined });
    t.events.emit("reconciled", "a");
    expect(t.sent).toEqual(["a:_control 1", "a:_control 2", "a:_control 2"]);
  });

  test("an annotation that is not JSON is named with file and line; a failed signal hop is reported", async () => {
    const t = setup();
    t.desired.set("a", manifest("a", "{nope"));
    t.desired.set("b", manifest("b", "3"));
    t.answerWith(fail(new Error("no _control port")));
    await t.signals.runnable(async () => {}).start!({ fatal: () => {} });
    await Bun.sleep(0);
    expect(t.lines).toHaveLength(1);
    expect(t.lines[0]).toStartWith(`error: flow.yaml:1: node a: annotation ${START_SIGNAL_ANNOTATION} is not JSON`);
    expect(t.failed).toEqual(["b: no _control port"]);
  });
});
