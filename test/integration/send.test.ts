/**
 * `tinyhost send` end to end:
 * - against the Go SDK's own `wire.Publish` (test/go/wirepublish): on core NATS the same subject,
 *   headers and body, and the same reply; under JetStream Go returns the stream's PubAck as the
 *   "reply" while `tinyhost send --wait` returns the flow's reply (docs/compatibility.md);
 * - against local mode (`run --local`, through the console's API): Reset by label, unknown nodes;
 * - against the test control plane + NATS, a module process running tick-count, core and JetStream:
 *   Start the ticker and Reset the counter from the command line.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Msg as NatsMsg, NatsConnection } from "@nats-io/transport-node";
import { tickCount } from "../../examples/generate.ts";
import { nodeNameOf } from "../../src/cli/scaffold/flow-builder.ts";
import { coded } from "../../src/core/errors.ts";
import { empty, fail, ok, type Result } from "../../src/core/result.ts";
import { connectNats } from "../../src/transport/nats/connect.ts";
import { CoreNatsTransport } from "../../src/transport/nats/core.ts";
import { JetStreamTransport } from "../../src/transport/nats/jetstream.ts";
import type { Msg } from "../../src/core/hop.ts";
import { BUN } from "../support/bun-test.ts";
import { openClusterFixture } from "../support/cluster-fixture.ts";
import { applyObjects, exampleObjects, nodeMetadata, nodesByComponent, waitForReconciled } from "../support/flows.ts";
import { goTool } from "../support/go-tools.ts";
import { startModuleProcess, type ModuleProcess } from "../support/module-process.ts";
import { startNats, type NatsServer } from "../support/nats.ts";
import { jetstreamManager } from "@nats-io/jetstream";
import { prepareBroker } from "../../src/provision/hooks/broker-prepare.ts";
import { EDGE_STREAM } from "../../src/transport/nats/names.ts";
import { freePort, startProcess, tail, waitUntil, type ManagedProcess } from "../support/process.ts";

const ROOT = resolve(import.meta.dir, "../..");
const td = new TextDecoder();

let sharedUrl: string;
let own: NatsServer | undefined;
let jsNats: NatsServer;
const conns: NatsConnection[] = [];
const closers: (() => Promise<unknown>)[] = [];
/** Run after each test of the file. */
const afterOne: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of afterOne.splice(0)) await c();
});

beforeAll(async () => {
  if (process.env.TINYHOST_TEST_NATS_URL) sharedUrl = process.env.TINYHOST_TEST_NATS_URL;
  else {
    own = await startNats();
    sharedUrl = own.url;
  }
  jsNats = await startNats(); // JetStream streams of our own: other tests' modules do not consume them
}, 60_000);

afterAll(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  await Promise.allSettled(conns.map((c) => c.close()));
  await own?.dispose();
  await jsNats?.dispose();
});

async function conn(url: string): Promise<NatsConnection> {
  const nc = await connectNats(url);
  conns.push(nc);
  return nc;
}

/** Runs `tinyhost send …`; resolves to its exit code and output. */
async function send(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const p = Bun.spawn([BUN, "src/cli/main.ts", "send", ...args], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, TINY_NATS_URL: "", TINY_NATS_TRANSPORT: "", ...env },
  });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out: out.trim(), err: err.trim() };
}

/** Runs the Go SDK's wire.Publish; resolves to what it returned. */
async function goPublish(url: string, node: string, port: string, data: string, wait: boolean): Promise<{ reply: string | null; error: string | null }> {
  const p = Bun.spawn([await goTool("wirepublish"), "-url", url, "-node", node, "-port", port, "-data", data, ...(wait ? ["-wait", "-timeout", "5s"] : [])], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`wirepublish exited ${code}: ${err}`);
  return JSON.parse(out) as { reply: string | null; error: string | null };
}

interface Captured {
  subject: string;
  headers: Record<string, string>;
  body: string;
  /** The message's reply subject, `""` when none. */
  reply: string;
}

/** Subscribes to every `tinymodule.>` subject of `url` and records the messages. */
async function capture(url: string): Promise<{ seen: Captured[]; next: (n: number) => Promise<Captured[]> }> {
  const nc = await conn(url);
  const seen: Captured[] = [];
  // Unsubscribed after the test: a listener left on tinymodule.> would answer "no responders" checks for nobody.
  const sub = nc.subscribe("tinymodule.>", {
    callback: (_e, m: NatsMsg) => {
      const headers: Record<string, string> = {};
      for (const k of m.headers?.keys() ?? []) headers[k] = m.headers!.get(k);
      seen.push({ subject: m.subject, headers, body: td.decode(m.data), reply: m.reply ?? "" });
    },
  });
  await nc.flush();
  afterOne.push(async () => {
    sub.unsubscribe();
    await nc.flush();
  });
  return {
    seen,
    next: async (n) => {
      await waitUntil(`${n} captured messages`, async () => seen.length >= n, 10_000, 20);
      return seen.splice(0, n);
    },
  };
}

/** The receiving side: answers `{pong, got}`; `n: 13` fails with code E_UNLUCKY; `n: 0` answers nothing. */
function handler(msg: Msg): Promise<Result> {
  const data = JSON.parse(td.decode(msg.data as Uint8Array)) as { n?: number };
  if (data.n === 13) return Promise.resolve(fail(coded("E_UNLUCKY", new Error("13 is unlucky"))));
  if (data.n === 0) return Promise.resolve(empty);
  return Promise.resolve(ok({ pong: true, got: data, from: msg.from, to: msg.to }));
}

/** Inboxes differ per call: compare the shape (an inbox, the same in header and reply subject). */
function shape(c: Captured): Captured {
  const inbox = c.headers["x-reply-inbox"];
  if (inbox !== undefined) expect(c.reply === inbox || c.reply === "" || c.reply.startsWith("_INBOX.")).toBe(true);
  return {
    ...c,
    headers: { ...c.headers, ...(inbox !== undefined ? { "x-reply-inbox": "<inbox>" } : {}) },
    reply: c.reply === "" ? "" : c.reply === inbox ? "<inbox>" : "<other inbox>",
  };
}

describe("tinyhost send on a cluster's NATS, as Go's wire.Publish", () => {
  test("core, fire-and-forget: the same subject (.sysmsg for _ ports, .msg else), headers and body as wire.Publish", async () => {
    const module = `sendparity${process.pid}`;
    const node = `f1.${module}.counter-1`;
    const cap = await capture(sharedUrl);
    for (const port of ["_control", "in"]) {
      await goPublish(sharedUrl, node, port, '{"reset":true}', false);
      const [goMsg] = await cap.next(1);
      const r = await send(["--nats-url", sharedUrl, node, port, '{"reset":true}']);
      expect(r.code).toBe(0);
      expect(r.err).toBe(
        `sent to ${node}:${port} (tinymodule.${module}.${port === "_control" ? "sysmsg" : "msg"}; core NATS does not report whether a module received it: --wait does)`,
      );
      const [ours] = await cap.next(1);
      expect(ours).toEqual(goMsg!);
      expect(ours).toEqual({
        subject: `tinymodule.${module}.${port === "_control" ? "sysmsg" : "msg"}`,
        headers: { "x-to": `${node}:${port}`, "x-from": "signal" },
        body: '{"reset":true}',
        reply: "",
      });
    }
  });

  test("core, --wait: the same request shape and the same reply, error and empty answers", async () => {
    const module = `sendwait${process.pid}`;
    const node = `f1.${module}.echo-1`;
    const t = new CoreNatsTransport({ nc: await conn(sharedUrl), module });
    t.serve({ handler });
    closers.push(() => t.close(100));
    await t.nc.flush();
    const cap = await capture(sharedUrl);

    const go = await goPublish(sharedUrl, node, "in", '{"n":1}', true);
    const [goMsg] = await cap.next(1);
    const ours = await send(["--nats-url", sharedUrl, "--wait", node, "in", '{"n":1}']);
    const [ourMsg] = await cap.next(1);
    expect(shape(ourMsg!)).toEqual(shape(goMsg!));
    expect(shape(ourMsg!).reply).toBe("<inbox>"); // the inbox is both the reply subject and x-reply-inbox, as in Go
    expect(ours.code).toBe(0);
    expect(JSON.parse(ours.out)).toEqual(JSON.parse(go.reply!));
    expect(JSON.parse(ours.out)).toEqual({ pong: true, got: { n: 1 }, from: "signal", to: `${node}:in` });

    const goErr = await goPublish(sharedUrl, node, "in", '{"n":13}', true);
    const ourErr = await send(["--nats-url", sharedUrl, "--wait", node, "in", '{"n":13}']);
    // Go wraps the received "<code>: <text>" in NonRetryable(code, …) and so prints the code twice;
    // ours keeps the text once (docs/compatibility.md, runtime-spec §16 item 18).
    expect(goErr.error).toBe("E_UNLUCKY: E_UNLUCKY: 13 is unlucky");
    expect(ourErr.code).toBe(1);
    expect(ourErr.err).toBe(`tinyhost send: ${node}:in failed: E_UNLUCKY: 13 is unlucky`);

    expect(await goPublish(sharedUrl, node, "in", '{"n":0}', true)).toEqual({ reply: null, error: null });
    const ourEmpty = await send(["--nats-url", sharedUrl, "--wait", node, "in", '{"n":0}']);
    expect([ourEmpty.code, ourEmpty.out]).toEqual([0, ""]);
    expect(ourEmpty.err).toContain("done, no result");
  });

  test("an unreachable NATS is named with its URL", async () => {
    const r = await send(["--nats-url", "nats://127.0.0.1:1", "f1.m.c-1", "in", "{}"]);
    expect(r.code).toBe(1);
    expect(r.err).toStartWith("tinyhost send: cannot connect to NATS at nats://127.0.0.1:1: ");
  });

  test("core, --wait with nobody serving the module: both say no responders at once", async () => {
    const node = `f1.nobody${process.pid}.echo-1`;
    const bare = await startNats({ jetstream: false }); // no stream, no listener: nobody at all takes the subject
    closers.push(() => bare.dispose());
    expect(await goPublish(bare.url, node, "in", "{}", true)).toEqual({ reply: null, error: "nats: no responders available for request" });
    const ours = await send(["--nats-url", bare.url, "--wait", "--timeout", "20s", node, "in", "{}"]);
    expect(ours.code).toBe(1);
    expect(ours.err).toContain("no responders (no module serves this subject) [NO_RESPONDERS]");
  });

  test("JetStream, --wait: Go's wire.Publish returns the stream's PubAck; tinyhost send returns the flow's reply", async () => {
    const module = `sendjs${process.pid}`;
    const node = `f1.${module}.echo-1`;
    const t = await JetStreamTransport.create({
      nc: await conn(jsNats.url),
      module,
      pod: `${module}-pod`,
      requestTimeoutMs: 10_000,
      healthCheckMs: 300,
      rebuildPauseMs: 100,
    });
    await t.serve({ handler, system: (msg) => handler(msg) });
    closers.push(() => t.close(100));

    const go = await goPublish(jsNats.url, node, "in", '{"n":2}', true);
    expect(go.error).toBeNull();
    expect(JSON.parse(go.reply!)).toMatchObject({ stream: "module-edges", seq: expect.any(Number) }); // the PubAck, not the flow's reply
    const ours = await send(["--nats-url", jsNats.url, "--transport", "jetstream", "--wait", node, "in", '{"n":2}']);
    expect(ours.code).toBe(0);
    expect(JSON.parse(ours.out)).toEqual({ pong: true, got: { n: 2 }, from: "signal", to: `${node}:in` });
    // A system port goes to the sysmsg stream and is answered by the pod's system consumer.
    const sys = await send(["--nats-url", jsNats.url, "--transport", "jetstream", "--wait", node, "_control", '{"n":3}'], {});
    expect(JSON.parse(sys.out)).toMatchObject({ got: { n: 3 }, to: `${node}:_control` });
    // Fire-and-forget under JetStream: stored by the stream (its ack), then handled.
    const stored = await send(["--nats-url", jsNats.url, node, "in", '{"n":4}'], { TINY_NATS_TRANSPORT: "jetstream" });
    expect(stored.code).toBe(0);
    expect(stored.err).toContain("stored by JetStream");
  });
});

describe("tinyhost send to a module at zero replicas on a JetStream broker (streams and consumer made before the first pod)", () => {
  /** The business consumer's backlog: what the module will run once a replica starts. */
  const pending = async (module: string) => (await (await jetstreamManager(await conn(jsNats.url))).consumers.info(EDGE_STREAM, module)).num_pending;

  /** Starts one replica of `module` answering with {@link handler}; resolves to the messages it handled. */
  async function wake(module: string): Promise<Msg[]> {
    const seen: Msg[] = [];
    const t = await JetStreamTransport.create({ nc: await conn(jsNats.url), module, pod: `${module}-pod`, healthCheckMs: 300, rebuildPauseMs: 100 });
    await t.serve({
      handler: (msg) => {
        seen.push(msg);
        return handler(msg);
      },
      system: (msg) => handler(msg),
    });
    afterOne.push(() => t.close(100));
    return seen;
  }

  test("core --wait: the stream's PubAck is not printed as the result; exit 3 TRANSPORT_MISMATCH says it is stored, will run, and to use --transport jetstream", async () => {
    const module = `zerocore${process.pid}`;
    const node = `f1.${module}.echo-1`;
    await prepareBroker(jsNats.url, module);
    const r = await send(["--nats-url", jsNats.url, "--transport", "core", "--wait", node, "in", '{"n":5}']);
    expect(r.out).toBe(""); // not {"stream":"module-edges","seq":…}
    expect(r.code).toBe(3);
    expect(r.err).toMatch(
      new RegExp(
        `^tinyhost send: ${node.replaceAll(".", "\\.")}:in: nats request to tinymodule\\.${module}\\.msg: answered by JetStream stream module-edges \\(seq \\d+\\), not by a module: ` +
          "the stream captured the message, so the target's JetStream consumer will handle it and no reply comes back over core NATS; " +
          "it will run when a replica takes it \\(at zero replicas, once one starts\\) — do not resend; " +
          "to wait for a result, send with --transport jetstream \\(TINY_NATS_TRANSPORT=jetstream\\) \\[TRANSPORT_MISMATCH\\]$",
      ),
    );
    // What the message says is so: it waits for the module, and the first replica runs it once.
    expect(await pending(module)).toBe(1);
    const seen = await wake(module);
    await waitUntil("the stored hop is handled", async () => seen.length >= 1, 10_000, 20);
    expect(seen.map((m) => m.to)).toEqual([`${node}:in`]);
  });

  test("jetstream --wait --timeout 1s: exit 3 STORED_PENDING names the stream and seq and says not to resend; the hop runs once a replica starts", async () => {
    const module = `zerojs${process.pid}`;
    const node = `f1.${module}.echo-1`;
    await prepareBroker(jsNats.url, module);
    const r = await send(["--nats-url", jsNats.url, "--transport", "jetstream", "--wait", "--timeout", "1s", node, "in", '{"n":6}']);
    expect(r.code).toBe(3);
    const seq = /\(seq (\d+)\)/.exec(r.err)?.[1];
    expect(r.err).toBe(
      `tinyhost send: ${node}:in: no result within 1s; the message is stored in stream module-edges (seq ${seq}): ` +
        "it will run when a replica takes it (at zero replicas, once one starts) — do not resend [STORED_PENDING]",
    );
    expect(await pending(module)).toBe(1);
    const seen = await wake(module);
    await waitUntil("the stored hop is handled", async () => seen.length >= 1, 10_000, 20);
    expect(JSON.parse(td.decode(seen[0]!.data as Uint8Array))).toEqual({ n: 6 });
  });

  test("jetstream --id: a resend with the same id is dropped by the real broker (exit 0 without --wait, exit 3 DUPLICATE with it) and runs once", async () => {
    const module = `zeroid${process.pid}`;
    const node = `f1.${module}.echo-1`;
    await prepareBroker(jsNats.url, module);
    const base = ["--nats-url", jsNats.url, "--transport", "jetstream", "--id", "order-7", node, "in", '{"n":7}'];
    const first = await send(base);
    expect([first.code, first.err]).toEqual([0, `sent to ${node}:in (tinymodule.${module}.msg, stored by JetStream)`]);
    const again = await send(base);
    expect(again.code).toBe(0);
    expect(again.err).toMatch(new RegExp(`: not sent again: stream module-edges already holds a message with id "order-7" \\(seq \\d+\\); it runs once$`));
    const waited = await send(["--wait", "--timeout", "20s", ...base]);
    expect(waited.code).toBe(3);
    expect(waited.err).toEndWith(`the first one runs (or ran) and its result went to its own sender [DUPLICATE]`);
    expect(await pending(module)).toBe(1);
    // Another id is another message.
    expect((await send(["--nats-url", jsNats.url, "--transport", "jetstream", "--id", "order-8", node, "in", '{"n":8}'])).code).toBe(0);
    const seen = await wake(module);
    await waitUntil("both stored hops are handled", async () => seen.length >= 2, 10_000, 20);
    // Nothing left to deliver: a copy that slipped through would still be pending or in flight.
    await waitUntil(
      "the backlog is drained",
      async () => {
        const c = await (await jetstreamManager(await conn(jsNats.url))).consumers.info(EDGE_STREAM, module);
        return c.num_pending === 0 && c.num_ack_pending === 0;
      },
      10_000,
      50,
    );
    expect(seen.map((m) => JSON.parse(td.decode(m.data as Uint8Array)).n).sort()).toEqual([7, 8]);
  });
});

describe("tinyhost send to local mode", () => {
  const procs: ManagedProcess[] = [];
  const temps: string[] = [];
  afterEach(async () => {
    for (const p of procs.splice(0)) await p.stop();
    for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  test("--local <dir> reaches the running host through its console: Reset by label, a failing hop exits 1, an unknown node lists the nodes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tinyhost-send-local-"));
    temps.push(dir);
    for (const f of readdirSync(join(ROOT, "examples/tick-count"))) if (f.endsWith(".yaml")) cpSync(join(ROOT, "examples/tick-count", f), join(dir, f));
    const log = join(dir, "..", `${Date.now()}-send-local.log`);
    procs.push(
      startProcess({
        name: "run --local",
        cmd: [BUN, "src/cli/main.ts", "run", "--local", dir, "--port", String(freePort()), "--console", "127.0.0.1:0"],
        cwd: ROOT,
        logFile: log,
        env: { TINYHOST_LOG_LEVEL: "warn" },
      }),
    );
    await waitUntil(
      "the console",
      async () => existsSync(join(dir, ".tinyhost")) && readdirSync(join(dir, ".tinyhost")).some((f) => /^console-\d+\.json$/.test(f)),
      30_000,
    ).catch(async (err) => {
      throw new Error(`${(err as Error).message}\n${await tail(log, 30)}`);
    });
    const counter = nodeNameOf(tickCount(), "counter");
    const count = () => {
      try {
        const b64 = JSON.parse(readFileSync(join(dir, ".tinyhost", "state.json"), "utf8")).nodes[counter]?.status?.metadata?.["_state/count"];
        return b64 ? Number(Buffer.from(b64, "base64").toString()) : 0;
      } catch {
        return -1;
      }
    };
    expect((await send(["--local", dir, "Every second", "_control", '{"stop":true}', "--wait"])).code).toBe(0);
    expect((await send(["--local", dir, "counter-f5e37", "in", '{"by":40}', "--wait"])).code).toBe(0);
    await waitUntil("count ≥ 40", async () => count() >= 40, 10_000);
    const reset = await send(["--local", dir, "Count ticks", "_control", '{"reset":true}', "--wait"]);
    expect(reset).toEqual({ code: 0, out: "", err: '"Count ticks":_control: done, no result' });
    await waitUntil("count reset in the state file", async () => count() === 0, 10_000);

    const bad = await send(["--local", dir, "Count ticks", "in", '{"by":"x"}', "--wait"]);
    expect(bad.code).toBe(1);
    expect(bad.err).toBe(`tinyhost send: "Count ticks":in failed: field $.by breaks rule "type": $.by must be an integer, got string "x" [VALIDATION]`);
    const unknown = await send(["--local", dir, "Count", "in"]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain(`no node "Count": not a name, label or name segment of any node (nodes: "Count ticks" (${counter})`);
    const nowhere = await send(["--local", join(dir, "elsewhere"), "Count ticks", "in"]);
    expect(nowhere.code).toBe(1);
    expect(nowhere.err).toContain("no console found for");
  }, 90_000);
});

describe("tinyhost send against the test control plane + NATS", () => {
  const mods: ModuleProcess[] = [];
  afterEach(async () => {
    await Promise.all(mods.splice(0).map((m) => m.stop(9000)));
  });

  for (const transport of ["core", "jetstream"] as const) {
    test(`${transport}: Start the ticker and Reset the counter of tick-count from the command line`, async () => {
      const { cp, kube, dir } = await openClusterFixture(`send-${transport}`);
      const ns = await cp.newNamespace(`send-${transport}`);
      const natsUrl = transport === "core" ? sharedUrl : jsNats.url;
      const env = { TINY_NATS_URL: natsUrl, ...(transport === "jetstream" ? { TINY_NATS_TRANSPORT: "jetstream" } : {}) };
      mods.push(
        await startModuleProcess({
          hostname: `${ns}-pod-0`,
          name: "tinyhost",
          namespace: ns,
          kubeconfig: cp.tokenKubeconfig,
          components: "components",
          env,
          logDir: dir,
        }),
      );
      const objects = exampleObjects("tick-count", ns);
      await applyObjects(kube, ns, objects);
      const names = nodesByComponent(objects);
      await waitForReconciled(kube, ns, Object.values(names));
      const persisted = async () => {
        const raw = (await nodeMetadata(kube, ns, names.counter!))["_state/count"];
        return raw === undefined ? 0 : Number(Buffer.from(raw, "base64").toString());
      };

      const start = await send(["--wait", names.ticker!, "_control", '{"start":true}'], env);
      expect(start.code).toBe(0);
      await waitUntil("the counter counts", async () => (await persisted()) >= 2, 20_000, 100);
      expect((await send(["--wait", names.ticker!, "_control", '{"stop":true}'], env)).code).toBe(0);
      await waitUntil("the ticker stopped", async () => (await nodeMetadata(kube, ns, names.ticker!))["ticker-running"] === undefined, 10_000, 100);
      const reset = await send(["--wait", "--timeout", "10s", names.counter!, "_control", '{"reset":true}'], env);
      expect(reset.code).toBe(0);
      await waitUntil("the count is reset in the TinyNode", async () => (await persisted()) === 0, 10_000, 100);
    }, 120_000);
  }
});
