import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineComponent, target, Type } from "tinyhost";
import { LocalHost } from "../../../src/local/host.ts";

/** What reached the sink. */
const got: unknown[] = [];
const sink = defineComponent({
  info: { name: "sink", description: "Sink", info: "records" },
  ports: () => [target("in", Type.Unknown(), { default: null })],
  handle(_ctx, _output, _port, data) {
    got.push(data);
  },
});

const hosts: LocalHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  got.length = 0;
});

const NODE = "abcd1234.tinyhost.double-it-aaaaa";
const SINK = "abcd1234.tinyhost.sink-bbbbb";

function component(script: string, name = "double_it"): string {
  return `apiVersion: operator.tinysystems.io/v1alpha1
kind: TinyComponent
metadata: {name: double-it}
spec:
  component: ${name}
  description: Doubles n
  runtime: js
  script: ${JSON.stringify(script)}
  input: '{"type":"object","properties":{"n":{"type":"integer"}}}'
  output: '{"type":"object","properties":{"n":{"type":"integer"}}}'
`;
}

const NODES = `apiVersion: operator.tinysystems.io/v1alpha1
kind: TinyNode
metadata:
  name: ${NODE}
  labels: {tinysystems.io/flow-name: f, tinysystems.io/project-name: p}
spec:
  module: tinyhost
  component: double_it
  edges:
  - {id: e1, port: response, to: "${SINK}:in"}
---
apiVersion: operator.tinysystems.io/v1alpha1
kind: TinyNode
metadata:
  name: ${SINK}
  labels: {tinysystems.io/flow-name: f, tinysystems.io/project-name: p}
spec:
  module: tinyhost
  component: sink
  ports:
  - {port: in, from: "${NODE}:response", configuration: eyJjb250ZXh0IjogInt7JC5jb250ZXh0fX0iLCAib3V0cHV0RGF0YSI6ICJ7eyQub3V0cHV0RGF0YX19In0=}
`;

async function start(script: string, name?: string) {
  const dir = mkdtempSync(join(tmpdir(), "tinyhost-tc-"));
  dirs.push(dir);
  writeFileSync(join(dir, "component.yaml"), component(script, name));
  writeFileSync(join(dir, "nodes.yaml"), NODES);
  const lines: string[] = [];
  const host = await LocalHost.start({
    dir,
    components: [sink],
    statePath: null,
    watch: false,
    debounceMs: 10,
    resyncMs: 0,
    removeGraceMs: 0,
    report: (l) => lines.push(l),
  });
  hosts.push(host);
  return { host, dir, lines };
}

const hop = (host: LocalHost, n: number) => host.send(NODE, "request", { context: { n }, inputData: { n } });

test("a TinyComponent in the directory runs as in the cluster: installed, its node runs, edits reach the running node, a broken edit keeps the last version", async () => {
  const { host, dir, lines } = await start("export default (i) => ({ n: i.n * 2 })");
  expect(host.componentStatus("double-it")).toEqual({ installed: true, reason: "", observedGeneration: 1, module: "tinyhost" });
  expect(lines).toContain("TinyComponent double-it: component double_it installed (js)");
  expect(host.status(NODE)).toMatchObject({ status: "OK" });
  await hop(host, 21);
  expect(got.at(-1)).toEqual({ context: { n: 21 }, outputData: { n: 42 } });

  writeFileSync(join(dir, "component.yaml"), component("export default (i) => ({ n: i.n * 3 })"));
  await host.reloadManifests();
  expect(host.componentStatus("double-it")?.observedGeneration).toBe(2);
  await hop(host, 5);
  expect(got.at(-1)).toEqual({ context: { n: 5 }, outputData: { n: 15 } });

  writeFileSync(join(dir, "component.yaml"), component("export default (i) => {{{"));
  await host.reloadManifests();
  const s = host.componentStatus("double-it")!;
  expect(s.installed).toBe(false);
  expect(s.reason).toStartWith("script: main.js:1:");
  expect(lines.some((l) => l.startsWith(`error: ${join(dir, "component.yaml")}:1: TinyComponent double-it: not installed: script: main.js:1:`))).toBe(true);
  await hop(host, 2);
  expect(got.at(-1)).toEqual({ context: { n: 2 }, outputData: { n: 6 } }); // the previous version serves

  rmSync(join(dir, "component.yaml"));
  await host.reloadManifests();
  expect(host.componentStatus("double-it")).toBeUndefined();
  expect(lines).toContain("TinyComponent double-it removed: its component is uninstalled");
  expect(host.scheduler.installed("double_it")).toBeUndefined();
  expect(host.status(NODE)).toMatchObject({ error: true, status: 'component "double_it" is not registered (known: sink)' });
});

test("a TinyComponent named like a bundled or file component is refused, as the cluster's catalog refuses it", async () => {
  const { host, lines } = await start("export default (i) => i", "sink");
  expect(host.componentStatus("double-it")).toMatchObject({ installed: false, reason: '"sink" is already a compiled component in this module' });
  expect(lines.some((l) => l.includes('TinyComponent double-it: not installed: "sink" is already a compiled component'))).toBe(true);
  expect(host.scheduler.installed("sink")).toBe(sink);
});
