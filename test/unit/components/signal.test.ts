import { expect, test } from "bun:test";
import { ok, testComponent, type Result } from "tinyhost";
import signal from "../../../components/signal.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

const unb64 = (s: string) => JSON.parse(Buffer.from(s, "base64").toString("utf8"));

test("signal declares _settings and _control at the top and out on the right", async () => {
  const h = await testComponent(signal, { settings: { context: { env: "dev" } } });
  const ports = h.status().ports!;
  expect(ports.map((p) => [p.name, p.label, p.position, p.source])).toEqual([
    ["_control", "Control", 0, true],
    ["_settings", "Settings", 0, false],
    ["out", "Out", 1, true],
  ]);
  expect(unb64(ports[0]!.configuration)).toEqual({ context: { env: "dev" }, send: false });
  const control = unb64(ports[0]!.schema) as { $defs: Record<string, { properties?: Record<string, Record<string, unknown>> }> };
  expect(Object.values(control.$defs).find((d) => d.properties?.send)!.properties!.send).toMatchObject({ type: "boolean", format: "button" });
});

test("send emits the control's context at the root on out", async () => {
  const h = await testComponent(signal, { settings: { context: { env: "dev" } } });
  const got = Promise.withResolvers<unknown>();
  h.respond("out", (d) => (got.resolve(d), ok(null)));
  await h.send("_control", { send: true, context: { user: "ada" } });
  expect(await got.promise).toEqual({ user: "ada" });
});

test("send without a context emits the settings context", async () => {
  const h = await testComponent(signal, { settings: { context: { env: "dev" } } });
  const got = Promise.withResolvers<unknown>();
  h.respond("out", (d) => (got.resolve(d), ok(null)));
  await h.send("_control", { send: true });
  expect(await got.promise).toEqual({ env: "dev" });
});

test("send returns at once while the downstream chain is still running", async () => {
  const h = await testComponent(signal, { settings: { context: 1 } });
  const release = Promise.withResolvers<Result>();
  const reached = Promise.withResolvers<void>();
  h.respond("out", () => (reached.resolve(), release.promise));
  const r = await h.send("_control", { send: true });
  expect(r.kind).toBe("empty");
  await reached.promise;
  release.resolve(ok(null));
});

test("a pod that is not the leader ignores send", async () => {
  const h = await testComponent(signal, { settings: { context: 1 }, isLeader: false });
  await h.send("_control", { send: true });
  await Bun.sleep(20);
  expect(h.emitted).toEqual([]);
});

test("a control message without send does nothing", async () => {
  const h = await testComponent(signal, { settings: { context: 1 } });
  await h.send("_control", { send: false, context: 2 });
  await Bun.sleep(20);
  expect(h.emitted).toEqual([]);
});
