/**
 * `[[secret:name/key]]` placeholders in settings (Go pkg/secret + runner `secretResolveTTL`,
 * SDK v0.13.125): resolved before onSettings, re-delivered when unchanged only after the TTL,
 * a clear node error naming the placeholder, and the resolved values masked where they show.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { Writable } from "node:stream";
import { defineComponent, target, Type } from "tinyhost";
import { Scheduler } from "../../../src/runtime/scheduler/index.ts";
import {
  containsPlaceholder,
  localSecretSource,
  parsePlaceholder,
  resolvePlaceholders,
  SecretError,
  secretEnvName,
  type SecretRef,
  type SecretSource,
} from "../../../src/runtime/secrets/index.ts";
import { forgetSecretValues, maskSecretValues, rememberSecretValue } from "../../../src/telemetry/secret-values.ts";
import { redactValue } from "../../../src/telemetry/redact.ts";
import { statusText } from "../../../src/k8s/status-text.ts";
import { redact } from "../../../src/runtime/runner/status.ts";
import { loggerOptions } from "../../../src/telemetry/log.ts";
import { makeNode, MODULE } from "../../support/fake-components.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

afterEach(() => forgetSecretValues());

/** A source over an in-memory `{name: {key: value}}` that counts its reads. */
function memorySource(data: Record<string, Record<string, string>>): SecretSource & { reads: number; data: typeof data } {
  const src = {
    where: "memory",
    reads: 0,
    data,
    read(ref: SecretRef) {
      src.reads++;
      const v = src.data[ref.name]?.[ref.key];
      return v === undefined ? Promise.reject(new SecretError("SECRET_NOT_FOUND", ref, `Secret "${ref.name}" not found`)) : Promise.resolve(v);
    },
  };
  return src;
}

function recorder(seen: unknown[]) {
  return defineComponent({
    info: { name: "secrec", description: "S", info: "" },
    ports: () => [
      target("_settings", Type.Object({ token: Type.String(), more: Type.Optional(Type.Array(Type.Object({ key: Type.String() }))) }), {
        default: { token: "" },
      }),
    ],
    onSettings(_ctx, s) {
      seen.push(s.more ? s : { token: s.token });
    },
    handle: () => undefined,
  });
}

function node(settings: unknown) {
  return makeNode("n", "secrec", { ports: [{ from: "", port: "_settings", config: settings }] });
}

describe("placeholders", () => {
  test("a placeholder is a whole string of [A-Za-z0-9._-] parts; anything else is ordinary text (Go placeholderRe)", () => {
    expect(parsePlaceholder("[[secret:openai/api-key]]")).toEqual({ name: "openai", key: "api-key", text: "[[secret:openai/api-key]]" });
    expect(parsePlaceholder("Bearer [[secret:openai/api-key]]")).toBeUndefined();
    expect(parsePlaceholder("[[secret:openai]]")).toBeUndefined();
    expect(parsePlaceholder("{{secret:a/b}}")).toBeUndefined();
    expect(parsePlaceholder("[[secret:a b/c]]")).toBeUndefined();
    expect(containsPlaceholder({ a: [1, { b: "[[secret:x/y]]" }] })).toBe(true);
    expect(containsPlaceholder({ a: "x [[secret:x/y]]" })).toBe(false);
  });

  test("resolution replaces every occurrence in a copy, reading each placeholder once", async () => {
    const src = memorySource({ x: { y: "v1" } });
    const input = { a: "[[secret:x/y]]", b: ["[[secret:x/y]]", "keep"] };
    const r = await resolvePlaceholders(input, (ref) => src.read(ref));
    expect(r.value).toEqual({ a: "v1", b: ["v1", "keep"] });
    expect(input.a).toBe("[[secret:x/y]]");
    expect(src.reads).toBe(1);
  });
});

describe("settings holding a placeholder", () => {
  test("onSettings gets the resolved value, nested ones too", async () => {
    const seen: unknown[] = [];
    const src = memorySource({ api: { token: "tok-12345" } });
    const s = new Scheduler({ module: MODULE, secrets: src });
    s.install(recorder(seen));
    const status = await s.update(node({ token: "[[secret:api/token]]", more: [{ key: "[[secret:api/token]]" }, { key: "plain" }] }));
    expect(status.error).toBe(false);
    expect(seen).toEqual([{ token: "tok-12345", more: [{ key: "tok-12345" }, { key: "plain" }] }]);
  });

  test("a missing Secret or key fails the node's settings with an error naming the placeholder", async () => {
    const seen: unknown[] = [];
    const s = new Scheduler({ module: MODULE, secrets: memorySource({}) });
    s.install(recorder(seen));
    const status = await s.update(node({ token: "[[secret:api/token]]" }));
    expect(status.error).toBe(true);
    expect(status.status).toContain("[[secret:api/token]]");
    expect(status.status).toContain('Secret "api" not found');
    expect(seen).toEqual([]);
  });

  test("a runtime without a secret source says so instead of passing the placeholder on", async () => {
    const seen: unknown[] = [];
    const s = new Scheduler({ module: MODULE });
    s.install(recorder(seen));
    const status = await s.update(node({ token: "[[secret:api/token]]" }));
    expect(status.status).toContain("[[secret:api/token]]: this runtime has no secret source");
    expect(seen).toEqual([]);
  });

  test("unchanged settings holding a placeholder are delivered again only once the TTL passed, picking up a rotated value", async () => {
    const seen: unknown[] = [];
    const src = memorySource({ api: { token: "old-value" } });
    const s = new Scheduler({ module: MODULE, secrets: src, secretResolveTtlMs: 150 });
    s.install(recorder(seen));
    const n = node({ token: "[[secret:api/token]]" });
    await s.update(n);
    src.data.api!.token = "new-value";
    await s.update(n); // within the TTL: skipped, as unchanged settings always are
    expect(seen).toEqual([{ token: "old-value" }]);
    await Bun.sleep(200);
    await s.update(n);
    expect(seen).toEqual([{ token: "old-value" }, { token: "new-value" }]);
  });

  test("unchanged settings without a placeholder are never delivered again", async () => {
    const seen: unknown[] = [];
    const s = new Scheduler({ module: MODULE, secrets: memorySource({}), secretResolveTtlMs: 0 });
    s.install(recorder(seen));
    const n = node({ token: "plain" });
    await s.update(n);
    await s.update(n);
    expect(seen).toEqual([{ token: "plain" }]);
  });

  test("a failed resolution is tried again at the next reconcile, and succeeds once the Secret exists", async () => {
    const seen: unknown[] = [];
    const src = memorySource({});
    const s = new Scheduler({ module: MODULE, secrets: src });
    s.install(recorder(seen));
    const n = node({ token: "[[secret:api/token]]" });
    expect((await s.update(n)).error).toBe(true);
    src.data.api = { token: "created-later" };
    const status = await s.update(n);
    expect(status.error).toBe(false);
    expect(seen).toEqual([{ token: "created-later" }]);
  });
});

describe("resolved values are masked wherever they could show", () => {
  test("span payloads and log fields, status texts and published configurations, log messages", async () => {
    const src = memorySource({ api: { token: "s3cr3t-value" } });
    const s = new Scheduler({ module: MODULE, secrets: src });
    s.install(recorder([]));
    await s.update(node({ token: "[[secret:api/token]]" }));
    expect(redactValue({ note: "sent s3cr3t-value to the API" })).toEqual({ note: "sent <redacted> to the API" });
    expect(statusText("handle failed: bad key s3cr3t-value")).toBe("handle failed: bad key <redacted>");
    expect(redact({ url: "https://x/?k=s3cr3t-value" })).toEqual({ url: "https://x/?k=<redacted>" });
    const lines: string[] = [];
    const log = pino(loggerOptions("info"), new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }));
    log.info({ field: "s3cr3t-value" }, "calling with s3cr3t-value");
    expect(lines.join("")).not.toContain("s3cr3t-value");
    expect(JSON.parse(lines[0]!)).toMatchObject({ field: "<redacted>", msg: "calling with <redacted>" });
  });

  test("a rotated value's predecessor stays masked; short values only as a whole string", () => {
    rememberSecretValue("[[secret:a/b]]", "first-value");
    rememberSecretValue("[[secret:a/b]]", "second-value");
    expect(maskSecretValues("first-value second-value")).toBe("<redacted> <redacted>");
    rememberSecretValue("[[secret:a/pin]]", "42");
    expect(maskSecretValues("42")).toBe("<redacted>");
    expect(maskSecretValues("1423")).toBe("1423");
  });
});

describe("local mode's source", () => {
  test("TINY_SECRET_<NAME>__<KEY> first, then the secrets file, re-read on every lookup", async () => {
    const dir = mkdtempSync(join(tmpdir(), "th-secrets-"));
    const file = join(dir, "secrets.yaml");
    const ref = parsePlaceholder("[[secret:openai/api-key]]")!;
    expect(secretEnvName(ref)).toBe("TINY_SECRET_OPENAI__API_KEY");
    const env: Record<string, string> = {};
    const src = localSecretSource(file, env);
    await expect(src.read(ref)).rejects.toThrow('[[secret:openai/api-key]]: no variable TINY_SECRET_OPENAI__API_KEY and no Secret "openai" in');
    writeFileSync(file, "openai:\n  api-key: from-file\n");
    expect(await src.read(ref)).toBe("from-file");
    writeFileSync(file, "openai:\n  other: x\n");
    await expect(src.read(ref)).rejects.toMatchObject({ code: "SECRET_KEY_NOT_FOUND" });
    env.TINY_SECRET_OPENAI__API_KEY = "from-env";
    expect(await src.read(ref)).toBe("from-env");
  });

  test("two placeholders that map to one variable fail, naming both and the variable, instead of sharing its value", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "th-secrets-")), "secrets.yaml");
    const dashed = parsePlaceholder("[[secret:a-b/token]]")!;
    const underscored = parsePlaceholder("[[secret:a_b/token]]")!;
    const upper = parsePlaceholder("[[secret:A-B/token]]")!;
    expect(new Set([dashed, underscored, upper].map(secretEnvName))).toEqual(new Set(["TINY_SECRET_A_B__TOKEN"]));
    const src = localSecretSource(file, { TINY_SECRET_A_B__TOKEN: "shared" }, "secrets.yaml");
    expect(await src.read(dashed)).toBe("shared"); // alone, the variable is unambiguous
    expect(await src.read(dashed)).toBe("shared");
    const message =
      "settings: [[secret:a_b/token]]: [[secret:a-b/token]] and [[secret:a_b/token]] both map to the variable TINY_SECRET_A_B__TOKEN, which cannot tell them apart; unset it and give both in secrets.yaml, or rename one Secret or key";
    await expect(src.read(underscored)).rejects.toMatchObject({ code: "SECRET_ENV_AMBIGUOUS", message });
    // From now on the first one fails too: neither may take the other's value.
    await expect(src.read(dashed)).rejects.toMatchObject({ code: "SECRET_ENV_AMBIGUOUS" });
    await expect(src.read(upper)).rejects.toThrow("TINY_SECRET_A_B__TOKEN");
    // Without the variable the file tells them apart: no collision.
    writeFileSync(file, "a-b:\n  token: one\na_b:\n  token: two\n");
    const fileOnly = localSecretSource(file, {}, "secrets.yaml");
    expect([await fileOnly.read(dashed), await fileOnly.read(underscored)]).toEqual(["one", "two"]);
  });

  test("a node whose settings name two colliding placeholders fails with that error", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "th-secrets-")), "secrets.yaml");
    const seen: unknown[] = [];
    const s = new Scheduler({ module: MODULE, secrets: localSecretSource(file, { TINY_SECRET_API__TOKEN: "v" }, "secrets.yaml") });
    s.install(recorder(seen));
    const status = await s.update(node({ token: "[[secret:api/token]]", more: [{ key: "[[secret:API/token]]" }] }));
    expect(status.error).toBe(true);
    expect(status.status).toContain("[[secret:api/token]] and [[secret:API/token]] both map to the variable TINY_SECRET_API__TOKEN");
    expect(seen).toEqual([]);
  });

  test("a Secret or key named like an Object property (__proto__, constructor, toString) is missing, not inherited", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "th-secrets-")), "secrets.yaml");
    writeFileSync(file, "openai:\n  api-key: v\n");
    const src = localSecretSource(file, {}, "secrets.yaml");
    const code = (text: string) =>
      src.read(parsePlaceholder(text)!).then(
        (v) => `resolved ${v}`,
        (e: SecretError) => e.code,
      );
    expect(await code("[[secret:constructor/name]]")).toBe("SECRET_NOT_FOUND");
    expect(await code("[[secret:__proto__/toString]]")).toBe("SECRET_NOT_FOUND");
    expect(await code("[[secret:openai/constructor]]")).toBe("SECRET_KEY_NOT_FOUND");
    expect(await code("[[secret:openai/api-key]]")).toBe("resolved v");
  });

  test("a malformed secrets file is named as malformed, never as a missing Secret or key", async () => {
    const dir = mkdtempSync(join(tmpdir(), "th-secrets-"));
    const file = join(dir, "secrets.yaml");
    const ref = parsePlaceholder("[[secret:api-creds/password]]")!;
    const src = localSecretSource(file, {}, "secrets.yaml");
    const failing = async (text: string) => {
      writeFileSync(file, text);
      return src.read(ref).then(
        () => "resolved",
        (e: SecretError) => `${e.code}: ${e.message}`,
      );
    };
    expect(await failing("- a\n- b\n")).toBe(
      "SECRET_READ_FAILED: settings: [[secret:api-creds/password]]: secrets.yaml must map Secret names to {key: value}, got a list",
    );
    expect(await failing("api-creds: password\n")).toBe(
      'SECRET_READ_FAILED: settings: [[secret:api-creds/password]]: Secret "api-creds" in secrets.yaml must map keys to values, got a string',
    );
    expect(await failing("api-creds:\n  password:\n")).toBe(
      'SECRET_READ_FAILED: settings: [[secret:api-creds/password]]: key "password" of Secret "api-creds" in secrets.yaml has no value',
    );
    expect(await failing("api-creds:\n  password: {a: 1}\n")).toBe(
      'SECRET_READ_FAILED: settings: [[secret:api-creds/password]]: key "password" of Secret "api-creds" in secrets.yaml must be a string, got an object',
    );
    // Values as written: YAML would otherwise turn a PIN into a number and drop its leading zero.
    writeFileSync(file, "api-creds:\n  password: 012345\n");
    expect(await src.read(ref)).toBe("012345");
  });
});
