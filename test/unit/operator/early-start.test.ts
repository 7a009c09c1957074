/**
 * The cluster start's first stage (src/operator/early.ts, issue 19): its three requests leave
 * before the rest of the module is loaded, and loading it loads no logger, wire or runtime.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beginStart } from "../../../src/operator/early.ts";
import { ModuleStartError } from "../../../src/operator/start-error.ts";
import type { ModuleOptions } from "../../../src/operator/options.ts";
import { lazyLogger } from "../../../src/telemetry/lazy-logger.ts";
import type { Logger } from "../../../src/telemetry/log.ts";

const ROOT = resolve(import.meta.dir, "../../..");
const dir = mkdtempSync(join(tmpdir(), "tinyhost-early-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

/** A token kubeconfig for a server nobody serves (the requests are recorded, not sent). */
function kubeconfig(): string {
  const path = join(dir, "config");
  writeFileSync(
    path,
    [
      "apiVersion: v1",
      "kind: Config",
      "current-context: t",
      "clusters: [{name: c, cluster: {server: 'http://127.0.0.1:9'}}]",
      "users: [{name: u, user: {token: abc}}]",
      "contexts: [{name: t, context: {cluster: c, user: u}}]",
      "",
    ].join("\n"),
  );
  return path;
}

function options(kubeconfigPath: string): ModuleOptions {
  return {
    name: "early-mod",
    version: "1.0.0",
    namespace: "ns1",
    kubeconfig: kubeconfigPath,
    hostname: "early-mod-0",
    lease: { durationMs: 1_000, renewDeadlineMs: 500, retryPeriodMs: 50 },
    healthProbeBindAddress: "127.0.0.1:0",
    grpcServerBindAddress: "127.0.0.1:0",
    env: {},
  };
}

/** A logger that fails the test when touched (the first stage must not log before a response). */
const untouchable = lazyLogger(() => {
  throw new Error("the first stage used its logger");
});

/** Names of the modules a fresh `bun` process has loaded after importing `file`. */
function loadedBy(file: string): string[] {
  const script = `await import(${JSON.stringify(resolve(ROOT, file))}); console.log(JSON.stringify(Object.keys(require.cache)));`;
  const r = Bun.spawnSync([process.execPath, "-e", script], { cwd: ROOT, env: { ...process.env, TINYHOST_LOG_LEVEL: "silent" } });
  expect(r.exitCode).toBe(0);
  return JSON.parse(r.stdout.toString().trim().split("\n").at(-1)!) as string[];
}

describe("the first start-up stage", () => {
  test("its three requests are on their way once `sent` resolves: Lease get, TinyNode list, TinyModule create", async () => {
    const calls: string[] = [];
    const answers: ((r: Response) => void)[] = [];
    let answering = false;
    globalThis.fetch = ((url: string, init?: RequestInit) => {
      if (answering) return Promise.resolve(new Response("{}", { status: 503 }));
      calls.push(`${init?.method ?? "GET"} ${new URL(url).pathname}`);
      return new Promise<Response>((r) => answers.push(r)); // answered after the assertions
    }) as typeof fetch;
    const early = beginStart(options(kubeconfig()), untouchable);
    await early.sent;
    expect(calls).toEqual([
      "GET /apis/coordination.k8s.io/v1/namespaces/ns1/leases/early-mod-lock",
      "GET /apis/operator.tinysystems.io/v1alpha1/namespaces/ns1/tinynodes",
      "POST /apis/operator.tinysystems.io/v1alpha1/namespaces/ns1/tinymodules",
    ]);
    expect(early.leadership.leaderKnown).toBe(false);
    answering = true;
    for (const answer of answers) answer(new Response("{}", { status: 503 }));
    await early.cancel();
  });

  test("an unreadable kubeconfig: parts reject with ModuleStartError for stage kubeconfig; sent still resolves", async () => {
    const early = beginStart(options(join(dir, "missing-config")), untouchable);
    await early.sent;
    const err = await early.parts.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ModuleStartError);
    expect((err as ModuleStartError).stage).toBe("kubeconfig");
    expect((err as Error).message).toContain("missing-config");
    await early.cancel(); // nothing to end: resolves
  });

  test("importing it, or the CLI's run-cluster command, loads no logger, wire or runtime", () => {
    const heavy =
      /node_modules\/(pino|@nats-io|hono|@grpc|@opentelemetry\/sdk)|src\/(telemetry\/log\.ts|runtime\/|transport\/|operator\/module\.ts|cli\/commands\/run-module\.ts)/;
    for (const file of ["src/operator/early.ts", "src/cli/commands/run-cluster.ts"]) {
      const loaded = loadedBy(file);
      expect(loaded.some((k) => k.endsWith(file))).toBe(true);
      expect({ file, heavy: loaded.filter((k) => heavy.test(k)) }).toEqual({ file, heavy: [] });
    }
  });
});

describe("lazyLogger", () => {
  test("makes the real logger on first use, once, and forwards calls bound to it", () => {
    let made = 0;
    const lines: string[] = [];
    const real = {
      prefix: "p",
      info(this: { prefix: string }, msg: string) {
        lines.push(`${this.prefix}:${msg}`);
      },
    };
    const log = lazyLogger(() => (made++, real as unknown as Logger));
    expect(made).toBe(0);
    const info = log.info;
    (info as unknown as (m: string) => void)("a");
    log.info("b");
    expect({ made, lines }).toEqual({ made: 1, lines: ["p:a", "p:b"] });
  });
});
