/**
 * What local mode prints for debug nodes and names: every message a debug node receives (a burst
 * of four from array_split gives four lines), and node labels instead of hashes in the lines.
 * Real LocalHost and bundled components.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import arraySplit from "../../../components/array_split.ts";
import debug from "../../../components/debug.ts";
import signal from "../../../components/signal.ts";
import { renderFlowFiles, type FlowDescription } from "../../../src/cli/scaffold/flow-builder.ts";
import { LocalHost } from "../../../src/local/host.ts";
import { waitUntil } from "../../support/process.ts";

const hosts: LocalHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const burst: FlowDescription = {
  project: "p",
  flow: "burst",
  module: "mod",
  nodes: {
    start: { component: "signal", label: "Go", settings: { context: { items: [1, 2, 3, 4] } }, startSignal: { send: true } },
    split: { component: "array_split", label: "Each item" },
    up: { component: "debug", label: "Item" },
  },
  edges: [
    { from: "start:out", to: "split:in", configuration: { context: "{{$}}", array: "{{$.items}}" } },
    { from: "split:out", to: "up:in", configuration: { item: "{{$.item}}" } },
  ],
};

test("a debug node prints every message of a burst, named by its label; status lines name nodes by label", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tinyhost-debug-"));
  dirs.push(dir);
  for (const f of renderFlowFiles(burst)) writeFileSync(join(dir, f.name), f.text);
  const lines: string[] = [];
  const host = await LocalHost.start({
    dir,
    components: [signal, arraySplit, debug],
    watch: false,
    debounceMs: 10,
    statePath: null,
    resyncMs: 0,
    report: (l) => lines.push(l),
  });
  hosts.push(host);
  await waitUntil("four debug lines", async () => lines.filter((l) => l.startsWith("debug ")).length >= 4, 10_000);
  expect(lines.filter((l) => l.startsWith("debug "))).toEqual([
    'debug "Item": {"item":1}',
    'debug "Item": {"item":2}',
    'debug "Item": {"item":3}',
    'debug "Item": {"item":4}',
  ]);
  await waitUntil("status lines", async () => lines.some((l) => l.startsWith('node "Each item"')), 10_000);
  expect(lines).toContain('node "Each item"  array_split  OK');
  expect(lines.some((l) => l.includes(".mod."))).toBe(false); // no hashed name anywhere
});
