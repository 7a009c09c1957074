/**
 * `testComponent`'s secrets and usage: `[[secret:name/key]]` placeholders in settings resolve from
 * `options.secrets` (local mode's `{name: {key: value}}` shape and checks), and what a hop `meter`s
 * is readable per hop and in total, as the runtime writes it on the hop's span.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { defineComponent, fail, meter, source, target, testComponent, Type } from "tinyhost";
import { forgetSecretValues, maskSecretValues } from "../../../src/telemetry/secret-values.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

afterEach(() => forgetSecretValues());

const client = defineComponent({
  info: { name: "api_client", description: "API client", info: "" },
  ports: () => [
    target("_settings", Type.Object({ token: Type.String(), region: Type.String() }), { default: { token: "", region: "" } }),
    target("in", Type.Object({ q: Type.String() }), { default: { q: "" } }),
    source("out", Type.Object({ auth: Type.String(), region: Type.String(), q: Type.String() })),
  ],
  onSettings(ctx, s) {
    (ctx.self as unknown as { token?: string; region?: string }).token = s.token;
    (ctx.self as unknown as { token?: string; region?: string }).region = s.region;
  },
  handle(ctx, output, _port, d) {
    const self = ctx.self as unknown as { token: string; region: string };
    return output("out", { auth: `Bearer ${self.token}`, region: self.region, q: d.q });
  },
});

const metered = defineComponent({
  info: { name: "llm", description: "LLM", info: "" },
  ports: () => [target("in", Type.Object({ tokens: Type.Number(), failIt: Type.Optional(Type.Boolean()) }), { default: { tokens: 0 } })],
  handle(ctx, _output, _port, d) {
    meter(ctx, "llm_input_tokens", d.tokens);
    meter(ctx, "llm_input_tokens", 10);
    meter(ctx, "llm_calls", 1);
    if (d.failIt) return fail(new Error("rate limited"));
    return undefined;
  },
});

describe("testComponent options.secrets", () => {
  test("placeholders in settings reach onSettings as the given values; plain strings stay as written; values are masked", async () => {
    const h = await testComponent(client, {
      settings: { token: "[[secret:api-creds/token]]", region: "eu" },
      secrets: { "api-creds": { token: "s3cr3t-value" } },
    });
    expect(h.status().error).not.toBe(true);
    await h.send("in", { q: "x" });
    expect(h.emitted).toEqual([{ port: "out", data: { auth: "Bearer s3cr3t-value", region: "eu", q: "x" } }]);
    expect(maskSecretValues("got s3cr3t-value back")).not.toContain("s3cr3t-value");
  });

  test("a Secret or key not given fails the settings with local mode's error naming the placeholder", async () => {
    const missingSecret = await testComponent(client, { settings: { token: "[[secret:other/token]]", region: "" }, secrets: { "api-creds": { token: "v" } } });
    expect(missingSecret.status().error).toBe(true);
    expect(missingSecret.status().status).toContain(`settings: [[secret:other/token]]: no Secret "other" in testComponent's options.secrets`);
    const missingKey = await testComponent(client, {
      settings: { token: "[[secret:api-creds/password]]", region: "" },
      secrets: { "api-creds": { token: "v" } },
    });
    expect(missingKey.status().status).toContain(`no key "password" in Secret "api-creds" of testComponent's options.secrets (its keys: token)`);
    // Without options.secrets every placeholder is missing, said the same way.
    const none = await testComponent(client, { settings: { token: "[[secret:api-creds/token]]", region: "" } });
    expect(none.status().status).toContain(`no Secret "api-creds" in testComponent's options.secrets`);
  });

  test("settings() later resolves against the same secrets", async () => {
    const h = await testComponent(client, { settings: { token: "plain", region: "" }, secrets: { a: { k: "first" }, b: { k: "second" } } });
    await h.settings({ token: "[[secret:b/k]]", region: "us" });
    await h.send("in", { q: "y" });
    expect(h.emitted.at(-1)?.data).toEqual({ auth: "Bearer second", region: "us", q: "y" });
  });
});

describe("testComponent usage", () => {
  test("each metering hop's sums per unit, in order, failed hops too; totals over all hops", async () => {
    const h = await testComponent(metered);
    expect(h.usage).toEqual([]);
    await h.send("in", { tokens: 100 });
    const r = await h.send("in", { tokens: 5, failIt: true });
    expect(r.kind).toBe("fail");
    expect(h.usage).toEqual([
      { port: "in", units: { llm_input_tokens: 110, llm_calls: 1 } },
      { port: "in", units: { llm_input_tokens: 15, llm_calls: 1 } },
    ]);
    expect(h.usageTotals()).toEqual({ llm_input_tokens: 125, llm_calls: 2 });
  });

  test("totals of units named like Object properties are sums, not inherited values", async () => {
    const named = defineComponent({
      info: { name: "named_units", description: "", info: "" },
      ports: () => [target("in", Type.Object({ unit: Type.String() }), { default: { unit: "" } })],
      handle(ctx, _output, _port, data) {
        meter(ctx, data.unit, 2);
      },
    });
    const h = await testComponent(named);
    for (const unit of ["constructor", "toString", "toString", "__proto__"]) await h.send("in", { unit });
    const totals = h.usageTotals();
    expect(Object.entries(totals)).toEqual([
      ["constructor", 2],
      ["toString", 4],
      ["__proto__", 2],
    ]);
  });

  test("a component that meters nothing records nothing", async () => {
    const h = await testComponent(client, { settings: { token: "t", region: "r" } });
    await h.send("in", { q: "z" });
    expect(h.usage).toEqual([]);
    expect(h.usageTotals()).toEqual({});
  });
});
