import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineComponent, source, target, Type } from "tinyhost";
import { LocalHost, type LocalHostOptions } from "../../../src/local/host.ts";
import { platformModule } from "../../../src/local/modules.ts";

/** What the sinks received, in order. */
const got: string[] = [];

const pulse = defineComponent({
  info: { name: "pulse", description: "Pulse", info: "re-emits what it gets" },
  ports: () => [target("in", Type.Unknown(), { default: null }), source("out", Type.Unknown())],
  handle: (_ctx, output, _port, data) => output("out", data),
});
/** Stand-ins named like platform components (the real ones are tested in their own files). */
const transform = defineComponent({
  info: { name: "transform", description: "Modify", info: "re-emits {context}" },
  ports: () => [
    target("in", Type.Object({ context: Type.Unknown() }), { default: { context: null } }),
    source("out", Type.Object({ context: Type.Unknown() })),
  ],
  handle: (_ctx, output, _port, data) => output("out", { context: data.context }),
});
const csvDecode = defineComponent({
  info: { name: "csv_decode", description: "CSV", info: "splits a line" },
  ports: () => [
    target("request", Type.Object({ encoded: Type.String() }), { default: { encoded: "" } }),
    source("response", Type.Object({ rows: Type.Array(Type.String()) })),
  ],
  handle: (_ctx, output, _port, data) => output("response", { rows: data.encoded.split(",") }),
});
const sink = defineComponent({
  info: { name: "sink", description: "Sink", info: "records" },
  ports: () => [target("in", Type.Unknown(), { default: null })],
  handle(ctx, _output, _port, data) {
    got.push(`${ctx.node.nodeName}:${JSON.stringify(data)}`);
  },
});

const COMMON = "tinysystems-common-module-v0";
const ENCODING = "tinysystems-encoding-module-v0";
const n = (module: string, key: string) => `f0f0f0f0.${module}.${key}`;

interface NodeDoc {
  name: string;
  component: string;
  edges?: { port: string; to: string }[];
  /** Port configurations on this (target) node: from `node:port`, its port, the mapping. */
  configs?: { from: string; port: string; configuration: unknown }[];
}

function yaml(d: NodeDoc): string {
  const module = d.name.split(".")[1];
  const lines = [
    "apiVersion: operator.tinysystems.io/v1alpha1",
    "kind: TinyNode",
    "metadata:",
    `  name: ${d.name}`,
    "  labels: {tinysystems.io/flow-name: f, tinysystems.io/project-name: p}",
    "spec:",
    `  component: ${d.component}`,
    `  module: ${module}`,
  ];
  if (d.edges?.length) {
    lines.push("  edges:");
    for (const [i, e] of d.edges.entries()) lines.push(`  - {id: e${i}-${d.name}, port: ${e.port}, to: "${e.to}"}`);
  }
  if (d.configs?.length) {
    lines.push("  ports:");
    for (const c of d.configs)
      lines.push(`  - {port: ${c.port}, from: "${c.from}", configuration: ${Buffer.from(JSON.stringify(c.configuration)).toString("base64")}}`);
  }
  return lines.join("\n") + "\n";
}

const dirs: string[] = [];
const hosts: LocalHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  got.length = 0;
});

async function start(docs: NodeDoc[], extra: Partial<LocalHostOptions> = {}, lines: string[] = []): Promise<LocalHost> {
  const dir = mkdtempSync(join(tmpdir(), "tinyhost-modules-"));
  dirs.push(dir);
  docs.forEach((d, i) => writeFileSync(join(dir, `${i}.yaml`), yaml(d)));
  const host = await LocalHost.start({
    dir,
    components: [pulse, transform, csvDecode, sink],
    watch: false,
    statePath: null,
    debounceMs: 10,
    resyncMs: 0,
    removeGraceMs: 0,
    report: (l) => lines.push(l),
    ...extra,
  });
  hosts.push(host);
  return host;
}

/** mod.pulse → common.transform → encoding.csv_decode → mod.sink */
const MIXED: NodeDoc[] = [
  { name: n("mod", "pulse-aaaaa"), component: "pulse", edges: [{ port: "out", to: `${n(COMMON, "transform-bbbbb")}:in` }] },
  {
    name: n(COMMON, "transform-bbbbb"),
    component: "transform",
    edges: [{ port: "out", to: `${n(ENCODING, "csv-decode-ccccc")}:request` }],
    configs: [{ from: `${n("mod", "pulse-aaaaa")}:out`, port: "in", configuration: { context: "{{$.line}}" } }],
  },
  {
    name: n(ENCODING, "csv-decode-ccccc"),
    component: "csv_decode",
    edges: [{ port: "response", to: `${n("mod", "sink-ddddd")}:in` }],
    configs: [{ from: `${n(COMMON, "transform-bbbbb")}:out`, port: "request", configuration: { encoded: "{{$.context}}" } }],
  },
  {
    name: n("mod", "sink-ddddd"),
    component: "sink",
    configs: [{ from: `${n(ENCODING, "csv-decode-ccccc")}:response`, port: "in", configuration: { rows: "{{$.rows}}" } }],
  },
];

describe("local mode runs every module of the directory", () => {
  test("platform module names map onto the bundled sets, with or without the publisher", () => {
    expect(platformModule(COMMON)?.name).toBe("common-module-v0");
    expect(platformModule("common-module-v0")?.name).toBe("common-module-v0");
    expect(platformModule("tinysystems/http-module-v0")?.name).toBe("http-module-v0");
    expect(platformModule(ENCODING)?.components).toContain("text_chunk");
    expect(platformModule("kubernetes-module-v0")).toBeUndefined();
  });

  test("a flow of three modules runs with one command: hops cross modules, each node's status names its module", async () => {
    const lines: string[] = [];
    const host = await start(MIXED, {}, lines);
    expect(lines[0]).toContain(`modules mod, ${COMMON}, ${ENCODING}`);
    expect(host.scheduler.nodes().sort()).toEqual(MIXED.map((d) => d.name).sort());
    expect(host.status(n(COMMON, "transform-bbbbb"))?.module?.name).toBe(COMMON);
    expect(host.status(n(ENCODING, "csv-decode-ccccc"))?.module?.name).toBe(ENCODING);
    expect(host.status(n("mod", "pulse-aaaaa"))?.module?.name).toBe("mod");
    const r = await host.send(n("mod", "pulse-aaaaa"), "in", { line: "a,b" });
    expect(r.kind).not.toBe("fail");
    expect(got).toEqual([`${n("mod", "sink-ddddd")}:{"rows":["a","b"]}`]);
  });

  test("the primary module is the user's, not a platform one that sorts first (the start line and --name default)", async () => {
    const lines: string[] = [];
    const docs = [MIXED[1]!, MIXED[2]!, MIXED[0]!, MIXED[3]!]; // a common-module node in the first file
    const host = await start(docs, {}, lines);
    expect(host.module).toBe("mod");
    expect(lines[0]).toContain(`modules mod, ${COMMON}, ${ENCODING}`);
  });

  test("a platform node with a component of another platform module is refused naming where it lives, and a hop to it fails at once", async () => {
    const bad = n(COMMON, "csv-decode-eeeee");
    const lines: string[] = [];
    const host = await start(
      [
        { name: n("mod", "pulse-aaaaa"), component: "pulse", edges: [{ port: "out", to: `${bad}:request` }] },
        { name: bad, component: "csv_decode" },
      ],
      {},
      lines,
    );
    expect(host.scheduler.runner(bad)).toBeUndefined();
    expect(host.status(bad)).toMatchObject({ error: true });
    expect(host.status(bad)?.status).toContain('component "csv_decode" is not part of common-module-v0');
    expect(host.status(bad)?.status).toContain("it is in encoding-module-v0");
    expect(lines.some((l) => l.startsWith("error:") && l.includes(bad) && l.includes("not part of common-module-v0"))).toBe(true);
    const t0 = performance.now();
    const r = await host.send(n("mod", "pulse-aaaaa"), "in", {});
    expect(r.kind).toBe("fail");
    if (r.kind === "fail") expect(r.error.message).toContain(`node ${bad} cannot run here: component "csv_decode" is not part of common-module-v0`);
    expect(performance.now() - t0).toBeLessThan(1000); // not the 5 s wait for a runner
  });

  test("a module tinyhost has no component of is named at load with what to do; a hop to it fails at once with that", async () => {
    const kube = n("tinysystems-kubernetes-module-v0", "pod-watch-fffff");
    const lines: string[] = [];
    const host = await start(
      [
        { name: n("mod", "pulse-aaaaa"), component: "pulse", edges: [{ port: "out", to: `${kube}:in` }] },
        { name: kube, component: "pod_watch" },
      ],
      {},
      lines,
    );
    const reason =
      "module tinysystems-kubernetes-module-v0 cannot run in tinyhost: none of its components (pod_watch) is bundled or in the components directory";
    expect(lines[0]).toContain(
      "module mod (in-process, leader); not served: tinysystems-kubernetes-module-v0 (no component of it is bundled or in the components directory; a hop to its nodes fails)",
    );
    expect(lines[0]).not.toContain("modules mod, tinysystems-kubernetes-module-v0");
    expect(lines.some((l) => l.startsWith("error:") && l.includes(kube) && l.includes(reason) && l.includes("tinyhost new component pod_watch"))).toBe(true);
    const r = await host.send(n("mod", "pulse-aaaaa"), "in", {});
    expect(r.kind === "fail" && r.error.message).toContain(reason);
  });

  test("with --name, the platform modules still run; another module's nodes are not run and a hop to them fails at once naming the flag", async () => {
    const other = n("other", "sink-ggggg");
    const docs: NodeDoc[] = [...MIXED, { name: other, component: "sink" }];
    docs[0] = { ...docs[0]!, edges: [...docs[0]!.edges!, { port: "out", to: `${other}:in` }] };
    const lines: string[] = [];
    const host = await start(docs, { moduleName: "mod" }, lines);
    expect(host.scheduler.runner(other)).toBeUndefined();
    expect(host.scheduler.runner(n(COMMON, "transform-bbbbb"))).toBeDefined();
    expect(lines.some((l) => l.includes(`node ${other} belongs to module other, not mod; not run here`) && l.includes("run without --name"))).toBe(true);
    const t0 = performance.now();
    const r = await host.send(n("mod", "pulse-aaaaa"), "in", { line: "x" });
    expect(r.kind).toBe("fail");
    if (r.kind === "fail") expect(r.error.message).toContain(`hop to ${other}:in: module other is not run here: this process was started with --name mod`);
    expect(performance.now() - t0).toBeLessThan(1000);
  });
});
