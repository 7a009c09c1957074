/**
 * RPC mode — components served as agent tools (runtime-spec §3.4, §4.5) — over a real nats-server,
 * with the Go SDK's own caller (`wire.PublishRPC`, through test/go/wire-peer) and `tinyhost rpc`:
 * the answer is the tool's first emit, on core NATS and on JetStream; errors name the component;
 * concurrent calls never share an instance; `tinyhost rpc` puts on the wire what PublishRPC puts;
 * `tinyhost rpc --local` runs the same call through a scheduler in its own process.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import type { Msg as NatsMsg, NatsConnection } from "@nats-io/transport-node";
import { Scheduler } from "../../src/runtime/scheduler/index.ts";
import type { ComponentDefinition } from "../../src/core/component.ts";
import { connectNats } from "../../src/transport/nats/connect.ts";
import { CoreNatsTransport } from "../../src/transport/nats/core.ts";
import { JetStreamTransport } from "../../src/transport/nats/jetstream.ts";
import { publishRpc } from "../../src/transport/nats/rpc.ts";
import door from "../fixtures/durable-components/door.ts";
import double from "../fixtures/durable-components/double.ts";
import step from "../fixtures/durable-components/step.ts";
import { BUN } from "../support/bun-test.ts";
import { goTool } from "../support/go-tools.ts";
import { startNats, type NatsServer } from "../support/nats.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";
const ROOT = resolve(import.meta.dir, "../..");
const FIXTURES = "test/fixtures/durable-components";

let coreUrl: string;
let jsServer: NatsServer;
const closers: Array<() => Promise<void>> = [];
const te = new TextEncoder();
const td = new TextDecoder();

/** A tinyhost module serving the durable fixtures (among them the agent tool durable_double) on `kind`. */
async function serve(kind: "core" | "jetstream", url: string, module: string): Promise<void> {
  const nc = await connectNats(url);
  const transport = kind === "core" ? new CoreNatsTransport({ nc, module }) : await JetStreamTransport.create({ nc, module, pod: `${module}-0` });
  const scheduler = new Scheduler({ module, remote: transport });
  for (const d of [door, step, double] as ComponentDefinition[]) scheduler.install(d);
  const handler = (m: Parameters<Scheduler["handle"]>[0], s?: AbortSignal) => scheduler.handle(m, s);
  if (transport instanceof CoreNatsTransport) transport.serve({ handler });
  else await transport.serve({ handler });
  await nc.flush();
  closers.push(async () => {
    await transport.close(100);
    await nc.close();
  });
}

/** Go's `wire.PublishRPC` (the SDK itself) → `{data}` or `{error}`. */
async function goRpc(url: string, module: string, component: string, json: string, timeoutMs = 10_000): Promise<{ data?: unknown; error?: string }> {
  const proc = Bun.spawn([await goTool("wire-peer"), "rpc", url, module, component, json, String(timeoutMs)], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`wire-peer exited ${code}: ${err}`);
  return JSON.parse(out);
}

/** `tinyhost rpc …` → exit code, stdout, stderr. */
async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const proc = Bun.spawn([BUN, "src/cli/main.ts", "rpc", ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe", env: { ...process.env, TINY_NATS_URL: "" } });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, out: out.trim(), err: err.trim() };
}

beforeAll(async () => {
  const url = process.env.TINYHOST_TEST_NATS_URL;
  if (!url) throw new Error("TINYHOST_TEST_NATS_URL is not set: run through test/support/run-integration.ts");
  coreUrl = url;
  jsServer = await startNats();
  await Promise.all([serve("core", coreUrl, "rpccore"), serve("jetstream", jsServer.url, "rpcjs")]);
}, 60_000);

afterAll(async () => {
  for (const c of closers) await c().catch(() => undefined);
  await jsServer.dispose();
});

describe("agent tools over NATS", () => {
  test("Go's wire.PublishRPC gets the tool's first emit from a tinyhost module on JetStream", async () => {
    expect(await goRpc(jsServer.url, "rpcjs", "durable_double", '{"n":21}')).toEqual({ data: { n: 42, calls: 1 } });
  });

  test("Go's wire.PublishRPC gets an answer from a tinyhost module on core NATS too", async () => {
    expect(await goRpc(coreUrl, "rpccore", "durable_double", '{"n":5}')).toEqual({ data: { n: 10, calls: 1 } });
  });

  test("an unknown component, a component that is not a tool and a schema-invalid input each fail naming it", async () => {
    expect((await goRpc(jsServer.url, "rpcjs", "nope", "{}")).error).toBe(
      'rpc: component "nope" not registered on this module (module rpcjs; registered: durable_door, durable_double, durable_step)',
    );
    expect((await goRpc(coreUrl, "rpccore", "durable_step", "{}")).error).toBe('rpc: component "durable_step" does not opt into AgentTool');
    expect((await goRpc(jsServer.url, "rpcjs", "durable_double", '{"n":"two"}')).error).toBe(
      'rpc: component "durable_double" input port "in": field $.n breaks rule "type": $.n must be a number, got string "two"',
    );
  });

  test("concurrent calls each run a fresh instance", async () => {
    const nc = await connectNats(jsServer.url);
    try {
      const rs = await Promise.all(
        Array.from({ length: 20 }, (_, i) => publishRpc(nc, "rpcjs", "durable_double", te.encode(JSON.stringify({ n: i })), 10_000)),
      );
      expect(rs.map((r) => (r.kind === "ok" ? JSON.parse(td.decode(r.value as Uint8Array)) : r))).toEqual(
        Array.from({ length: 20 }, (_, i) => ({ n: 2 * i, calls: 1 })),
      );
    } finally {
      await nc.close();
    }
  });
});

describe("tinyhost rpc", () => {
  test("puts on the wire what Go's PublishRPC puts: same subject, headers and body, no reply subject", async () => {
    const tap: NatsConnection = await connectNats(coreUrl);
    const seen: NatsMsg[] = [];
    tap.subscribe("tinymodule.nobody.msg", { callback: (_e, m) => void seen.push(m) });
    await tap.flush();
    try {
      await goRpc(coreUrl, "nobody", "some_tool", '{"a":1}', 300);
      await cli("--nats-url", coreUrl, "--timeout", "300", "nobody", "some_tool", '{"a":1}');
      await Bun.sleep(100);
      expect(seen.length).toBe(2);
      const shape = (m: NatsMsg) => ({
        subject: m.subject,
        reply: m.reply ?? "",
        body: td.decode(m.data),
        headers: Object.fromEntries(
          m
            .headers!.keys()
            .map((k) => [k, k === "x-reply-inbox" ? (m.headers!.get(k).startsWith("_INBOX.") ? "<inbox>" : m.headers!.get(k)) : m.headers!.get(k)]),
        ),
      });
      const [go, ours] = seen.map(shape);
      expect(go).toEqual({
        subject: "tinymodule.nobody.msg",
        reply: "",
        body: '{"a":1}',
        headers: { "x-to": "some_tool", "x-mode": "rpc", "x-reply-inbox": "<inbox>" },
      });
      expect(ours).toEqual(go!);
    } finally {
      await tap.close();
    }
  });

  test("prints the tool's answer over NATS, core and JetStream", async () => {
    expect(await cli("--nats-url", jsServer.url, "rpcjs", "durable_double", '{"n":4}')).toEqual({ code: 0, out: '{"n":8,"calls":1}', err: "" });
    expect(await cli("--nats-url", coreUrl, "rpccore", "durable_double", '{"n":3}')).toEqual({ code: 0, out: '{"n":6,"calls":1}', err: "" });
  });

  test("fails with exit 1 and the error naming the component", async () => {
    const r = await cli("--nats-url", coreUrl, "rpccore", "durable_step", "{}");
    expect(r.code).toBe(1);
    expect(r.err).toBe('tinyhost rpc: component "durable_step" does not opt into AgentTool');
    const t = await cli("--nats-url", coreUrl, "--timeout", "300", "nobody", "some_tool");
    expect(t.code).toBe(1);
    expect(t.err).toContain("no answer from some_tool on tinymodule.nobody.msg within 300 ms");
  });

  test("--local runs the call through a scheduler in its own process", async () => {
    expect(await cli("--local", "--components", FIXTURES, "tinyhost", "durable_double", '{"n":7}')).toEqual({ code: 0, out: '{"n":14,"calls":1}', err: "" });
    const unknown = await cli("--local", "--components", FIXTURES, "tinyhost", "nope");
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('component "nope" not registered on this module (module tinyhost;');
    const invalid = await cli("--local", "--components", FIXTURES, "tinyhost", "durable_double", '{"n":"two"}');
    expect(invalid.err).toContain('component "durable_double" input port "in": field $.n breaks rule "type"');
    // Go's decode semantics: null is the zero value, not an error.
    expect(await cli("--local", "--components", FIXTURES, "tinyhost", "durable_double", '{"n":null}')).toEqual({ code: 0, out: '{"n":0,"calls":1}', err: "" });
    expect((await cli("--local", "--components", FIXTURES, "tinyhost", "durable_double", "{oops")).code).toBe(2);
    // Another module's name is refused, naming both; --name runs the components as that module.
    const other = await cli("--local", "--components", FIXTURES, "othermod", "durable_double", '{"n":7}');
    expect(other.code).toBe(2);
    expect(other.err).toContain('module "othermod" is not the module --local runs ("tinyhost")');
    expect(await cli("--local", "--name", "othermod", "--components", FIXTURES, "othermod", "durable_double", '{"n":7}')).toEqual({
      code: 0,
      out: '{"n":14,"calls":1}',
      err: "",
    });
  });
});
