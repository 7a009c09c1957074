/**
 * The console's API over a real LocalHost: the flow by label, sends resolved by label with their
 * results, hops in the history and on the SSE stream (with Last-Event-ID replay), the loopback
 * guard, and the discovery file.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import counter from "../../../components/counter.ts";
import { defineComponent, fail, ok, source, target, Type } from "tinyhost";
import { LocalConsole } from "../../../src/console/console.ts";
import { consoleFile } from "../../../src/console/discovery.ts";
import type { FlowView } from "../../../src/console/flow-view.ts";
import type { HopEvent } from "../../../src/console/history.ts";
import { nodeNameOf, renderFlowFiles, type FlowDescription } from "../../../src/cli/scaffold/flow-builder.ts";
import { LocalHost } from "../../../src/local/host.ts";
import { waitUntil } from "../../support/process.ts";
import { SETTINGS_REFUSED } from "../../../src/console/settings-port.ts";

const echo = defineComponent({
  info: { name: "echo", description: "Echo", info: "answers what it got; fails on n = 13; waits 2 s on n = 99" },
  ports: () => [target("in", Type.Object({ n: Type.Integer(), token: Type.String() }), { default: { n: 0, token: "" } }), source("out", Type.Unknown())],
  async handle(_ctx, output, _port, data) {
    if (data.n === 13) return fail("unlucky");
    if (data.n === 99) await Bun.sleep(2000);
    await output("out", data);
    return ok({ got: data.n, token: data.token });
  },
});

const desc: FlowDescription = {
  project: "p",
  flow: "api",
  module: "mod",
  nodes: {
    echo: { component: "echo", label: "Echo", position: [10, 20] },
    count: { component: "counter", label: "Count" },
  },
  edges: [{ from: "echo:out", to: "count:in", configuration: { context: "{{$}}" } }],
};

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(extra: { port?: number; fallback?: boolean } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "tinyhost-console-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  for (const f of renderFlowFiles(desc)) writeFileSync(join(dir, f.name), f.text);
  let console_: LocalConsole | undefined;
  const host = await LocalHost.start({
    dir,
    components: [echo, counter],
    watch: false,
    debounceMs: 10,
    statePath: null,
    resyncMs: 0,
    report: () => {},
    runnables: (h) => {
      console_ = new LocalConsole(h, { address: { hostname: "127.0.0.1", port: extra.port ?? 0, fallback: extra.fallback ?? false } });
      return [
        ["servers", console_.runnable()],
        ["receivers", console_.announcer()],
      ];
    },
  });
  cleanups.push(() => host.stop());
  const c = console_!;
  return { dir, host, c, url: c.url! };
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}/api/send`, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });

describe("console API", () => {
  test("GET /api/flow lists every node by label with its component and position, and the edges", async () => {
    const { url } = await start();
    const flow = (await (await fetch(`${url}/api/flow`)).json()) as FlowView;
    expect(flow.nodes.map((n) => [n.label, n.component, n.running])).toEqual([
      ["Count", "counter", true],
      ["Echo", "echo", true],
    ]);
    expect(flow.nodes.find((n) => n.label === "Echo")).toMatchObject({ x: 10, y: 20 });
    expect(flow.edges).toEqual([{ id: expect.any(String), from: nodeNameOf(desc, "echo"), fromPort: "out", to: nodeNameOf(desc, "count"), toPort: "in" }]);
    expect(flow.nodes.find((n) => n.label === "Count")!.ports.find((p) => p.name === "_control")!.buttons).toEqual(["reset"]);
  });

  test("POST /api/send refuses the _settings port with the reason, as tinyhost send does", async () => {
    const { url } = await start();
    const res = await post(url, { node: "Count", port: "_settings", data: { step: 5 } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: SETTINGS_REFUSED, code: "SETTINGS_PORT" });
  });

  test("POST /api/send by label waits for the hop's result (redacted) and the hop is in the history", async () => {
    const { url } = await start();
    const res = await post(url, { node: "Echo", port: "in", data: { n: 5, token: "s3cret" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      node: nodeNameOf(desc, "echo"),
      shown: '"Echo"',
      port: "in",
      result: "ok",
      value: '{"got":5,"token":"<redacted>"}',
    });
    const { hops } = (await (await fetch(`${url}/api/hops?node=${nodeNameOf(desc, "echo")}`)).json()) as { hops: HopEvent[] };
    const into = hops.find((h) => h.node === nodeNameOf(desc, "echo"))!;
    expect(into).toMatchObject({ from: "signal", port: "in", data: '{"n":5,"token":"<redacted>"}', result: "ok" });
    // The hop it caused (echo:out → count:in) is there too, as sent by echo.
    expect(hops.some((h) => h.node === nodeNameOf(desc, "count") && h.from === `${nodeNameOf(desc, "echo")}:out`)).toBe(true);
  });

  test("a failed hop answers fail with its message and shows as the node's last error", async () => {
    const { url } = await start();
    const a = await (await post(url, { node: "echo-" + nodeNameOf(desc, "echo").split("-").pop(), port: "in", data: { n: 13 } })).json();
    expect(a).toMatchObject({ result: "fail", error: "unlucky" });
    const flow = (await (await fetch(`${url}/api/flow`)).json()) as FlowView;
    expect(flow.nodes.find((n) => n.label === "Echo")!.lastError).toMatchObject({ port: "in", from: "signal", message: "unlucky" });
  });

  test("the counter's Reset through _control resets the count", async () => {
    const { url, host } = await start();
    for (let i = 0; i < 3; i++) await post(url, { node: "Count", port: "in", data: {} });
    const count = () => Buffer.from(host.status(nodeNameOf(desc, "count"))?.metadata?.["_state/count"] ?? "", "base64").toString();
    await waitUntil("count 3", async () => count() === "3", 5000);
    expect(((await (await post(url, { node: "Count", port: "_control", data: { count: 3, reset: true } })).json()) as { result: string }).result).toBe("empty");
    await waitUntil("count reset", async () => count() === "", 5000);
  });

  test("unknown nodes, output ports and bad bodies are refused with what is wrong; wait:false answers at once", async () => {
    const { url } = await start();
    expect((await post(url, { node: "Nope", port: "in" })).status).toBe(404);
    const out = await post(url, { node: "Echo", port: "out", data: {} });
    expect(out.status).toBe(400);
    expect(((await out.json()) as { error: string }).error).toBe(`node "Echo": "out" is an output port (its input ports: in)`);
    const bad = await fetch(`${url}/api/send`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{" });
    expect(bad.status).toBe(400);
    expect((await post(url, { node: "Echo", port: "in", timeoutMs: -1 })).status).toBe(400);
    const t0 = performance.now();
    const sent = await post(url, { node: "Echo", port: "in", data: { n: 99 }, wait: false });
    expect(sent.status).toBe(202);
    expect(((await sent.json()) as { result: string }).result).toBe("sent");
    expect(performance.now() - t0).toBeLessThan(1900); // did not wait for the 2 s hop
  });

  test("a send that lands while the node's runner is being replaced (a component reload) waits for the new one, as a hop does", async () => {
    const { url, host } = await start();
    const name = nodeNameOf(desc, "echo");
    const node = structuredClone(host.nodes.find(name)!);
    await host.scheduler.destroy(name); // the window between the old runner's stop and the new one's start
    const answer = post(url, { node: "Echo", port: "in", data: { n: 5, token: "t" } });
    await Bun.sleep(100); // the send is in, waiting
    await host.scheduler.update(node);
    const res = await answer;
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ result: "ok", value: '{"got":5,"token":"<redacted>"}' });
  });

  test("a hop slower than timeoutMs answers 504 timeout; the hop goes on", async () => {
    const { url } = await start();
    const res = await post(url, { node: "Echo", port: "in", data: { n: 99 }, timeoutMs: 200 });
    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({ result: "timeout", error: "no result within 200 ms; the hop goes on" });
  });
});

describe("console guard", () => {
  test("another Host (DNS rebinding), another Origin, Sec-Fetch-Site cross-site and non-JSON posts are refused", async () => {
    const { url } = await start();
    const port = new URL(url).port;
    expect((await fetch(`${url}/api/flow`, { headers: { Host: `evil.example:${port}` } })).status).toBe(403);
    expect((await fetch(`${url}/api/flow`, { headers: { Host: `localhost:${port}` } })).status).toBe(200);
    expect((await post(url, { node: "Echo", port: "in" }, { Origin: "http://evil.example" })).status).toBe(403);
    expect((await post(url, { node: "Echo", port: "in", data: { n: 1 } }, { Origin: `http://127.0.0.1:${port}` })).status).toBe(200);
    expect((await fetch(`${url}/api/flow`, { headers: { "Sec-Fetch-Site": "cross-site" } })).status).toBe(403);
    expect((await fetch(`${url}/api/send`, { method: "POST", headers: { "Content-Type": "text/plain" }, body: "{}" })).status).toBe(415);
  });
});

/** Reads SSE events from `res` until `until` says stop. */
async function readEvents(res: Response, until: (events: { event: string; data: string; id?: string }[]) => boolean, ms = 5000) {
  const reader = res.body!.getReader();
  const events: { event: string; data: string; id?: string }[] = [];
  let buf = "";
  const deadline = Date.now() + ms;
  while (!until(events) && Date.now() < deadline) {
    const chunk = await Promise.race([reader.read(), Bun.sleep(deadline - Date.now()).then(() => undefined)]);
    if (!chunk || chunk.done) break;
    buf += new TextDecoder().decode(chunk.value);
    let i: number;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const e = { event: "message", data: "", id: undefined as string | undefined };
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) e.event = line.slice(7);
        else if (line.startsWith("data: ")) e.data += line.slice(6);
        else if (line.startsWith("id: ")) e.id = line.slice(4);
      }
      if (!block.startsWith(":")) events.push(e);
    }
  }
  await reader.cancel();
  return events;
}

describe("console stream", () => {
  test("an open stream gets the flow, then each hop within a batch; its id is the hop's sequence number", async () => {
    const { url } = await start();
    const res = await fetch(`${url}/api/events`);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    setTimeout(() => void post(url, { node: "Echo", port: "in", data: { n: 1 } }), 100);
    const hopsOf = (es: { event: string; data: string }[]) => es.filter((e) => e.event === "hops").flatMap((e) => JSON.parse(e.data) as HopEvent[]);
    const events = await readEvents(res, (es) => hopsOf(es).length >= 2);
    expect(events[0]!.event).toBe("flow");
    const hops = events.filter((e) => e.event === "hops").at(-1)!;
    const batch = hopsOf(events);
    // Hops are numbered as they end: the one echo caused (count:in) ends before echo's own.
    expect(batch.map((h) => [h.node, h.from])).toEqual([
      [nodeNameOf(desc, "count"), `${nodeNameOf(desc, "echo")}:out`],
      [nodeNameOf(desc, "echo"), "signal"],
    ]);
    expect(hops.id).toBe(String(batch.at(-1)!.seq));
  });

  test("a page that reconnects with Last-Event-ID gets the hops it missed; a filter keeps only its node's", async () => {
    const { url } = await start();
    await post(url, { node: "Echo", port: "in", data: { n: 1 } });
    const seen = ((await (await fetch(`${url}/api/hops`)).json()) as { seq: number }).seq; // what the page had
    await post(url, { node: "Count", port: "in", data: {} });
    await post(url, { node: "Echo", port: "in", data: { n: 2 } });
    const res = await fetch(`${url}/api/events?node=${nodeNameOf(desc, "count")}`, { headers: { "Last-Event-ID": String(seen) } });
    const events = await readEvents(res, (es) => es.some((e) => e.event === "hops"));
    const batch = JSON.parse(events.find((e) => e.event === "hops")!.data) as HopEvent[];
    expect(batch.map((h) => [h.node, h.from])).toEqual([
      [nodeNameOf(desc, "count"), "signal"],
      [nodeNameOf(desc, "count"), `${nodeNameOf(desc, "echo")}:out`],
    ]); // echo's own hop (from signal into echo) is neither into nor out of count
  });
});

describe("console runnable", () => {
  test("writes the discovery file while it listens and removes it on stop", async () => {
    const { dir, host, url } = await start();
    expect(JSON.parse(readFileSync(consoleFile(dir, process.pid), "utf8"))).toMatchObject({ url, pid: process.pid });
    await host.stop();
    expect(existsSync(consoleFile(dir, process.pid))).toBe(false);
  });

  test("the default port falls back to a free one when taken; an explicit one fails start-up naming it", async () => {
    const blocker = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("x") });
    cleanups.push(() => blocker.stop(true));
    const { url } = await start({ port: blocker.port, fallback: true });
    expect(new URL(url).port).not.toBe(String(blocker.port));
    expect(start({ port: blocker.port, fallback: false })).rejects.toThrow(`console: cannot listen on 127.0.0.1:${blocker.port}`);
  });
});
