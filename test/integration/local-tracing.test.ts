/**
 * Local mode honours the same OTLP variables as cluster mode: a malformed OTLP_DSN stops start-up
 * naming the variable, and OTEL_EXPORTER_OTLP_ENDPOINT exports the flow's hop spans.
 */
import { afterAll, expect, test } from "bun:test";
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startProcess, waitUntil, type ManagedProcess } from "../support/process.ts";

const ROOT = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "local-tracing-"));
const spans: { name: string; service: string }[] = [];
const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const body = (await req.json()) as {
      resourceSpans?: { resource?: { attributes?: { key: string; value: { stringValue?: string } }[] }; scopeSpans?: { spans?: { name: string }[] }[] }[];
    };
    for (const rs of body.resourceSpans ?? []) {
      const service = rs.resource?.attributes?.find((a) => a.key === "service.name")?.value.stringValue ?? "";
      for (const ss of rs.scopeSpans ?? []) for (const s of ss.spans ?? []) spans.push({ name: s.name, service });
    }
    return Response.json({});
  },
});
let proc: ManagedProcess | undefined;
afterAll(async () => {
  await proc?.stop();
  receiver.stop(true);
});

test("a malformed OTLP_DSN stops local mode at start-up, naming the variable", () => {
  const r = Bun.spawnSync([process.execPath, "src/cli/main.ts", "run", "--local", "examples/tick-count", "--no-state"], {
    cwd: ROOT,
    env: { ...process.env, OTLP_DSN: "ftp://token@collector:4317" },
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(r.exitCode).toBe(1);
  expect(r.stderr.toString()).toContain('OTLP_DSN="ftp://token@collector:4317" is invalid');
});

test("with OTEL_EXPORTER_OTLP_ENDPOINT the ticking flow's hops are exported under the module's name", async () => {
  const dir = join(work, "tick-count");
  cpSync(join(ROOT, "examples/tick-count"), dir, { recursive: true });
  proc = startProcess({
    name: "local tracing",
    cmd: [process.execPath, join(ROOT, "src/cli/main.ts"), "run", "--local", dir, "--no-state", "--name", "tinyhost"],
    logFile: join(work, "local.log"),
    cwd: ROOT,
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}` },
  });
  await waitUntil("hop spans from the ticking flow", async () => spans.length >= 3, 20_000, 200);
  expect(new Set(spans.map((s) => s.service))).toEqual(new Set(["tinyhost"]));
});
