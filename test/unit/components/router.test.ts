import { describe, expect, test } from "bun:test";
import { ok, testComponent } from "tinyhost";
import router from "../../../components/router.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

interface PortStatus {
  name: string;
  label: string;
  position: number;
  source: boolean;
  schema: string;
  configuration: string;
}
const unb64 = (s: string) => JSON.parse(Buffer.from(s, "base64").toString("utf8"));
const ports = (status: { ports?: unknown }) => status.ports as PortStatus[];

describe("router ports", () => {
  test("default settings give routes A and B as out_a/out_b on the right, input on the left", async () => {
    const h = await testComponent(router);
    expect(ports(h.status()).map((p) => [p.name, p.label, p.position, p.source])).toEqual([
      ["_settings", "Settings", 0, false],
      ["input", "IN", 3, false],
      ["out_a", "A", 1, true],
      ["out_b", "B", 1, true],
    ]);
    expect(unb64(ports(h.status()).find((p) => p.name === "_settings")!.configuration)).toEqual({ routes: ["A", "B"], enableDefaultPort: false });
  });

  test("settings routes become out_<lowercase> ports labelled upper-case, plus default at the bottom when enabled", async () => {
    const h = await testComponent(router, { settings: { routes: ["Get", "post"], enableDefaultPort: true } });
    expect(ports(h.status()).map((p) => [p.name, p.label, p.position])).toEqual([
      ["_settings", "Settings", 0],
      ["default", "Default", 2],
      ["input", "IN", 3],
      ["out_get", "GET", 1],
      ["out_post", "POST", 1],
    ]);
  });

  test("input publishes the route as a shared select over the routes, defaulting to the first", async () => {
    const h = await testComponent(router, { settings: { routes: ["GET", "POST"], enableDefaultPort: false } });
    const input = ports(h.status()).find((p) => p.name === "input")!;
    expect(unb64(input.configuration)).toEqual({ context: null, conditions: [{ route: "GET", condition: true }] });
    const schema = unb64(input.schema) as {
      $defs: Record<string, { properties?: Record<string, Record<string, unknown>>; configurable?: boolean; path?: string }>;
    };
    const route = Object.values(schema.$defs).find((d) => d.path === "$.conditions[0].route")!;
    expect(route).toMatchObject({ type: "string", enum: ["GET", "POST"], default: "GET", shared: true });
    const context = Object.values(schema.$defs).find((d) => d.path === "$.context")!;
    expect(context.configurable).toBe(true);
  });
});

describe("router routing", () => {
  const settings = { routes: ["GET", "POST"], enableDefaultPort: false };

  test("the first true condition picks its route and the downstream result is returned", async () => {
    const h = await testComponent(router, { settings });
    h.respond("out_post", (d) => ok({ from: "post", d }));
    const r = await h.send("input", {
      context: { n: 1 },
      conditions: [
        { route: "GET", condition: false },
        { route: "POST", condition: true },
        { route: "GET", condition: true },
      ],
    });
    expect(h.emitted).toEqual([{ port: "out_post", data: { context: { n: 1 } } }]);
    expect(r).toEqual({ kind: "ok", value: { from: "post", d: { context: { n: 1 } } } });
  });

  test("route names match case-insensitively", async () => {
    const h = await testComponent(router, { settings });
    await h.send("input", { context: 1, conditions: [{ route: "get", condition: true }] });
    expect(h.emitted.map((e) => e.port)).toEqual(["out_get"]);
  });

  test("a true condition naming an unknown route stops the scan and falls to default", async () => {
    const h = await testComponent(router, { settings: { ...settings, enableDefaultPort: true } });
    await h.send("input", {
      context: 1,
      conditions: [
        { route: "PUT", condition: true },
        { route: "GET", condition: true },
      ],
    });
    expect(h.emitted).toEqual([{ port: "default", data: { context: 1 } }]);
  });

  test("no true condition emits on default when enabled", async () => {
    const h = await testComponent(router, { settings: { ...settings, enableDefaultPort: true } });
    h.respond("default", () => ok("fallback"));
    const r = await h.send("input", { context: "x", conditions: [{ route: "GET", condition: false }] });
    expect(h.emitted).toEqual([{ port: "default", data: { context: "x" } }]);
    expect(r).toEqual({ kind: "ok", value: "fallback" });
  });

  test("no true condition without default fails with no matching route and emits nothing", async () => {
    const h = await testComponent(router, { settings });
    const r = await h.send("input", {
      context: 1,
      conditions: [
        { route: "GET", condition: false },
        { route: "POST", condition: null },
      ],
    });
    expect(h.emitted).toEqual([]);
    expect(r.kind === "fail" && r.error.message).toBe("no matching route: [{{GET []} false} {{POST []} false}]");
  });

  test("a failing downstream result is returned as is", async () => {
    const h = await testComponent(router, { settings });
    h.respond("out_get", () => ({ kind: "fail", error: new Error("downstream broke") }));
    const r = await h.send("input", { context: 1, conditions: [{ route: "GET", condition: true }] });
    expect(r.kind === "fail" && r.error.message).toBe("downstream broke");
  });
});
