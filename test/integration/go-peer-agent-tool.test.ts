/**
 * Agent tools against the real Go SDK (runtime-spec §3.4, §4.5; issue 16): the Go peer's `double`
 * implements `module.AgentTool` (test/go/peer/tool.go) and its tinyhost twin declares `agentTool`
 * (test/fixtures/go-peer/components/double.ts); both modules run side by side on JetStream
 * (test/support/go-peer-bed.ts). Compared, each against what the SDK itself does:
 * - the TinyModule status each module's leader writes for the tool (Go's TinyModule controller);
 * - Go's `tools components-info --json` and tinyhost's `tools components-info --json` and `components --json`;
 * - RPC answers and errors: `tinyhost rpc` and Go's `wire.PublishRPC` (test/go/wire-peer), each
 *   calling both modules.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { tinyModules } from "../../src/k8s/controllers/index.ts";
import { sanitizeResourceName } from "../../src/core/api/index.ts";
import { BUN } from "../support/bun-test.ts";
import { TWIN_COMPONENTS } from "../support/go-peer.ts";
import { openMixedBed, type MixedBed } from "../support/go-peer-bed.ts";
import { goTool } from "../support/go-tools.ts";
import { waitUntil } from "../support/process.ts";

const ROOT = resolve(import.meta.dir, "../..");

let bed: MixedBed;

beforeAll(async () => {
  bed = await openMixedBed("jetstream", "at");
}, 240_000);

afterAll(async () => {
  await bed?.stop();
});

/** JSON text with object keys sorted at every level (equality as JSON, key order aside). */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v !== null && typeof v === "object")
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    );
  return v;
}

interface StatusEntry {
  name: string;
  description?: string;
  info?: string;
  tags?: string[];
  ports?: { name: string; label?: string; source?: boolean; position?: number; schema?: string }[];
}

/** The TinyModule status entry of `component` that `module`'s leader wrote, with port schemas decoded. */
async function statusEntry(module: string, component: string): Promise<unknown> {
  let entry: StatusEntry | undefined;
  await waitUntil(
    `TinyModule ${module} lists ${component}`,
    async () => {
      const m = await bed.kube.get(tinyModules, sanitizeResourceName(module), bed.ns).catch(() => undefined);
      entry = (m?.status?.components as StatusEntry[] | undefined)?.find((c) => c.name === component);
      return entry !== undefined;
    },
    60_000,
    200,
  );
  return canonical({
    ...entry,
    ports: entry!.ports?.map((p) => ({ ...p, schema: p.schema ? JSON.parse(Buffer.from(p.schema, "base64").toString("utf8")) : undefined })),
  });
}

/** Runs `cmd`, returns exit code and trimmed output. */
async function run(cmd: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const proc = Bun.spawn(cmd, { cwd: ROOT, stdout: "pipe", stderr: "pipe", env: { ...process.env, TINY_NATS_URL: "", ...env } });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, out: out.trim(), err: err.trim() };
}

/** An RPC call's outcome as the caller reports it: the answer JSON, or the error text. */
type Outcome = { data: unknown } | { error: string };

/** Go's `wire.PublishRPC` to `module`. */
async function goCall(module: string, component: string, json: string): Promise<Outcome> {
  const r = await run([await goTool("wire-peer"), "rpc", bed.natsUrl!, module, component, json, "15000"]);
  if (r.code !== 0) throw new Error(`wire-peer exited ${r.code}: ${r.err}`);
  return JSON.parse(r.out) as Outcome;
}

/**
 * `tinyhost rpc` to `module`: stdout is the answer; a failure exits 1 with `tinyhost rpc: <error>`
 * on stderr, the error's own `rpc: ` prefix dropped (src/cli/commands/rpc.ts).
 */
async function tinyhostCall(module: string, component: string, json: string): Promise<Outcome> {
  const r = await run([BUN, "src/cli/main.ts", "rpc", "--nats-url", bed.natsUrl!, "--timeout", "15000", module, component, json]);
  if (r.code === 0) return { data: JSON.parse(r.out) };
  expect({ code: r.code, prefix: r.err.startsWith("tinyhost rpc: ") }).toEqual({ code: 1, prefix: true });
  return { error: r.err.slice("tinyhost rpc: ".length) };
}

/** The four calls: each caller (Go, tinyhost) to each module (Go, tinyhost), by "<caller>→<module>". */
async function everyWay(component: string, json: string): Promise<Record<string, Outcome>> {
  const [gg, gt, tg, tt] = await Promise.all([
    goCall(bed.go.name, component, json),
    goCall(bed.th.name, component, json),
    tinyhostCall(bed.go.name, component, json),
    tinyhostCall(bed.th.name, component, json),
  ]);
  return { "go→go": gg, "go→tinyhost": gt, "tinyhost→go": tg, "tinyhost→tinyhost": tt };
}

describe("an agent tool served by the Go SDK and by tinyhost", () => {
  test("both TinyModule statuses list the tool alike: name, description, authored info and tags (no agent_tool tag), ports and their schemas", async () => {
    const [go, ours] = await Promise.all([statusEntry(bed.go.name, "double"), statusEntry(bed.th.name, "double")]);
    expect(ours).toEqual(go);
    expect(go).toMatchObject({ info: "doubles n", tags: ["test"] });
    expect((go as { ports: { name: string }[] }).ports.map((p) => p.name)).toEqual(["in", "out"]);
  }, 90_000);

  test("Go's tools components-info --json and tinyhost components --json list every twin alike, the tool with the agent_tool tag and its description as info", async () => {
    const goInfo = await run([await goTool("peer"), "tools", "components-info", "--json"]);
    expect(goInfo.code).toBe(0);
    const theirs = JSON.parse(goInfo.out) as { name: string; description?: string; info?: string; tags?: string[] }[];
    const oursRun = await run([BUN, "src/cli/main.ts", "components", "--components", TWIN_COMPONENTS, "--json"]);
    expect(oursRun.code).toBe(0);
    // Ours adds `ports` (docs/compatibility.md "Schemas, registry and tinyhost components"); the
    // discovery fields are Go's.
    const ours = new Map(
      (JSON.parse(oursRun.out) as { name: string; description?: string; info?: string; tags?: string[] }[]).map((c) => [
        c.name,
        { name: c.name, description: c.description, info: c.info, tags: c.tags },
      ]),
    );
    // `tools components-info --json` is the very listing (the repository index shape), field for field.
    const infoRun = await run([BUN, "src/cli/main.ts", "tools", "components-info", "--dir", TWIN_COMPONENTS, "--json"]);
    expect(infoRun.code).toBe(0);
    const listed = new Map((JSON.parse(infoRun.out) as { name: string }[]).map((c) => [c.name, c]));
    for (const c of theirs) expect({ component: c.name, listed: canonical(listed.get(c.name)) }).toEqual({ component: c.name, listed: canonical(c) });
    expect([...listed.keys()].sort()).toEqual(theirs.map((c) => c.name).sort());
    expect(theirs.map((c) => c.name).sort()).toEqual(["controller", "double", "durable_door", "durable_step", "echo", "fail", "relay", "sink"]);
    for (const c of theirs) expect({ component: c.name, ours: canonical(ours.get(c.name)) }).toEqual({ component: c.name, ours: canonical(c) });
    expect(theirs.find((c) => c.name === "double")).toEqual({
      name: "double",
      description: "Double",
      info: "Doubles a number. Input {n}; returns {n: 2n}.",
      tags: ["test", "agent_tool"],
    });
  }, 90_000);

  test("an RPC call gets the tool's first emit from either runtime, through either caller", async () => {
    const answers = await everyWay("double", '{"n":21}');
    for (const a of Object.values(answers)) expect(a).toEqual({ data: { n: 42, calls: 1 } });
  }, 90_000);

  test("a component that is not an agent tool fails with the same error from either runtime, through either caller", async () => {
    const errors = await everyWay("relay", '{"data":1}');
    expect(errors).toEqual({
      "go→go": { error: 'rpc: component "relay" does not opt into AgentTool' },
      "go→tinyhost": { error: 'rpc: component "relay" does not opt into AgentTool' },
      "tinyhost→go": { error: 'component "relay" does not opt into AgentTool' },
      "tinyhost→tinyhost": { error: 'component "relay" does not opt into AgentTool' },
    });
  }, 90_000);

  test("a tool's coded error reaches either caller as the SDK's caller reports it", async () => {
    const errors = await everyWay("double", '{"n":-1}');
    const text = "double: n must not be negative, got -1";
    // Go's PublishRPC rebuilds NonRetryable(code, text) from x-error-code, doubling the prefix
    // (runtime-spec §16 item 18); tinyhost rpc prints the error text it received.
    expect(errors).toEqual({
      "go→go": { error: `E_NEGATIVE: E_NEGATIVE: ${text}` },
      "go→tinyhost": { error: `E_NEGATIVE: E_NEGATIVE: ${text}` },
      "tinyhost→go": { error: `E_NEGATIVE: ${text}` },
      "tinyhost→tinyhost": { error: `E_NEGATIVE: ${text}` },
    });
  }, 90_000);

  test("an unknown component fails starting with Go's text from either runtime; tinyhost adds the module and what is registered", async () => {
    const errors = await everyWay("nope", "{}");
    const go = 'rpc: component "nope" not registered on this module';
    expect({ "go→go": errors["go→go"], "tinyhost→go": errors["tinyhost→go"] }).toEqual({
      "go→go": { error: go },
      "tinyhost→go": { error: go.slice("rpc: ".length) },
    });
    // tinyhost: Go's text, then the module and its components (the twins and the bundled ones), sorted.
    const registered = (e: Outcome) => {
      const m = /^(.*) \(module ([^;]+); registered: (.*)\)$/.exec((e as { error: string }).error);
      return m ? { text: m[1], module: m[2], names: m[3]!.split(", ") } : { text: (e as { error: string }).error };
    };
    for (const [k, text] of [
      ["go→tinyhost", go],
      ["tinyhost→tinyhost", go.slice("rpc: ".length)],
    ] as const) {
      const r = registered(errors[k]!) as { text: string; module?: string; names?: string[] };
      expect({ k, text: r.text, module: r.module }).toEqual({ k, text, module: bed.th.name });
      expect(r.names).toEqual([...r.names!].sort());
      expect(r.names).toEqual(expect.arrayContaining(["controller", "double", "durable_door", "durable_step", "echo", "fail", "relay", "sink", "js_eval"]));
    }
  }, 90_000);

  test("deliberate: an input of the wrong type fails in both; tinyhost's error names the component, port, field and value", async () => {
    const errors = await everyWay("double", '{"n":"two"}');
    for (const k of ["go→go", "tinyhost→go"])
      expect({ k, error: (errors[k] as { error: string }).error }).toEqual({
        k,
        error: expect.stringContaining("unmarshal double input: json: cannot unmarshal string into Go struct field DoubleIn.n of type int"),
      });
    for (const k of ["go→tinyhost", "tinyhost→tinyhost"])
      expect({ k, error: (errors[k] as { error: string }).error }).toEqual({
        k,
        error: expect.stringContaining('component "double" input port "in": field $.n breaks rule "type": $.n must be an integer, got string "two"'),
      });
  }, 90_000);
});
