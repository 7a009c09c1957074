// Bundled components given data without the fields they act on: the runner decodes a missing or
// null field as Go's zero value (test/integration/port-parity.test.ts checks that decode against the
// Go SDK), and each component then behaves as its Go original does with that zero value. These are
// the issue-13 cases (settings saved before a field existed, partial control messages).
import { afterEach, describe, expect, test } from "bun:test";
import { ok, testComponent, type ComponentHarness } from "tinyhost";
import asyncComponent from "../../../components/async.ts";
import counter from "../../../components/counter.ts";
import cron from "../../../components/cron.ts";
import httpServer from "../../../components/http_server.ts";
import router from "../../../components/router.ts";
import signal from "../../../components/signal.ts";
import ticker from "../../../components/ticker.ts";
import { until as poll } from "../../support/until.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

const harnesses: ComponentHarness[] = [];
async function start(...args: Parameters<typeof testComponent>): Promise<ComponentHarness> {
  const h = await testComponent(...args);
  harnesses.push(h);
  return h;
}
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((h) => h.stop()));
});

/** This file's timeout and poll interval. */
const until = (what: string, check: () => boolean) => poll(what, check, 5000, 2);

function portNames(h: ComponentHarness): string[] {
  return (h.status().ports ?? []).map((p) => p.name);
}

function configuration(h: ComponentHarness, port: string): unknown {
  const p = (h.status().ports ?? []).find((x) => x.name === port);
  return p ? JSON.parse(Buffer.from(p.configuration, "base64").toString("utf8")) : undefined;
}

describe("settings without a field reconcile as in Go", () => {
  test("async _settings {}: maxConcurrency is 0, which means 100 slots", async () => {
    const h = await start(asyncComponent, { settings: {} });
    expect(h.status().status).toBe("OK");
    expect((h.self as { maxConcurrency: number }).maxConcurrency).toBe(0);
    // 0 ⇒ 100: a message still goes out in the background at once.
    h.respond("out", () => ok("late"));
    expect(await h.send("in", { context: 1 })).toEqual({ kind: "empty" });
    await until("the background emit", () => h.emitted.length === 1);
  });

  test("ticker _settings without delay: delay 0, no pause between ticks (Go's zero Duration)", async () => {
    const h = await start(ticker, { settings: { context: { n: 1 } } });
    expect(h.status().status).toBe("OK");
    expect(configuration(h, "_settings")).toEqual({ context: { n: 1 }, delay: 0 });
    h.respond("out", () => ok("tick"));
    await h.send("_control", { start: true });
    await until("several ticks without a pause", () => h.emitted.filter((e) => e.port === "out").length >= 3);
    expect(h.emitted.find((e) => e.port === "out")?.data).toEqual({ n: 1 });
  });

  test("http_server _settings without enableStopPort: no stop port, the status port as given", async () => {
    const h = await start(httpServer, { settings: { enableStatusPort: true } });
    expect(h.status().status).toBe("OK");
    expect(portNames(h)).toEqual(["_control", "_settings", "request", "response", "start", "status"]);
    expect(configuration(h, "_settings")).toEqual({ enableStatusPort: true, enableStopPort: false, maxBodySize: 0 });
  });

  test("router _settings without enableDefaultPort: the routes, no default port", async () => {
    const h = await start(router, { settings: { routes: ["GET", "POST"] } });
    expect(h.status().status).toBe("OK");
    expect(portNames(h)).toEqual(["_settings", "input", "out_get", "out_post"]);
  });

  test("router _settings {}: no route ports, and every input fails 'no matching route' (Go's nil routes)", async () => {
    const h = await start(router, { settings: {} });
    expect(portNames(h)).toEqual(["_settings", "input"]);
    expect(configuration(h, "_settings")).toEqual({ routes: null, enableDefaultPort: false });
    const r = await h.send("input", { context: 1, conditions: [{ route: "A", condition: true }] });
    expect(r.kind === "fail" && r.error.message).toBe("no matching route: [{{A []} true}]");
  });

  test("router input without conditions fails 'no matching route: []'", async () => {
    const h = await start(router);
    const r = await h.send("input", { context: 1 });
    expect(r.kind === "fail" && r.error.message).toBe("no matching route: []");
  });

  test("cron _settings without schedule reconciles (Go stores the empty schedule) and a start is refused", async () => {
    const h = await start(cron, { settings: { context: 1 } });
    expect(h.status().status).toBe("OK");
    await h.send("_control", { start: true });
    await until("the refused start to show", () => String((configuration(h, "_control") as { status?: string }).status).startsWith("invalid schedule"));
  });

  test("counter _settings {}: step 0 counts by 1", async () => {
    const h = await start(counter, { settings: {} });
    expect(h.status().status).toBe("OK");
    expect((h.self as { settings: { step: number; initial: number } }).settings).toEqual({ step: 1, initial: 0 });
  });
});

describe("partial control messages act as in Go", () => {
  test("signal _control {send: true} (context decoded as null) sends the settings' context", async () => {
    const h = await start(signal, { settings: { context: { hello: "world" } } });
    await h.send("_control", { send: true });
    await until("the emit", () => h.emitted.length === 1);
    expect(h.emitted[0]).toEqual({ port: "out", data: { hello: "world" } });
  });

  test("signal _control without send does nothing", async () => {
    const h = await start(signal, { settings: { context: 1 } });
    expect(await h.send("_control", { context: 2 })).toEqual({ kind: "empty" });
    await Bun.sleep(20);
    expect(h.emitted).toEqual([]);
  });
});
