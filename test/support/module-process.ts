/**
 * Spawns `bun src/cli/main.ts run ...` as a child module process for the operator integration tests,
 * with its own HOSTNAME, health port and log file, and waits for /readyz. The child dies with the
 * test process (startProcess's watchdog).
 */
import { join, resolve } from "node:path";
import { BUN } from "./bun-test.ts";
import { freePort, startProcess, tail, waitUntil, type ManagedProcess } from "./process.ts";

const ROOT = resolve(import.meta.dir, "../..");

/** Options of {@link startModuleProcess}. */
export interface ModuleProcessOptions {
  /** Pod name (HOSTNAME) = Lease identity. */
  hostname: string;
  /** `--name`. */
  name: string;
  /** `--namespace`. */
  namespace: string;
  /** `--kubeconfig`. */
  kubeconfig: string;
  /** `--components`; default test/fixtures/operator-components. */
  components?: string;
  /** `--version`; default "1.0.0". */
  version?: string;
  /** Extra environment (RECORDER_FILE, TINYHOST_LEASE_DURATION_MS, …). */
  env?: Record<string, string>;
  /** Directory for the log file `<hostname>.log`. */
  logDir: string;
  /** Wait for /readyz 200; default true. */
  waitReady?: boolean;
  /** Extra CLI flags. */
  args?: string[];
  /** The command before `run`; default `bun src/cli/main.ts` (e.g. `[dist/tinyhost]`). */
  command?: string[];
  /** Working directory; default the project root. */
  cwd?: string;
}

/** A running module process. */
export interface ModuleProcess extends ManagedProcess {
  /** `http://127.0.0.1:<port>` of its health server. */
  readonly healthUrl: string;
  /** Its log file. */
  readonly logFile: string;
  /** GET /readyz → status code and JSON body (undefined when the process does not answer). */
  readyz(): Promise<{ status: number; body: { status: string; checks: Record<string, string> } } | undefined>;
  /** GET /metrics → text (empty when the process does not answer). */
  metrics(): Promise<string>;
  /** One metric sample from /metrics: the value of the first line starting with `series`. */
  metric(series: string): Promise<number | undefined>;
}

/**
 * Starts a module process and (by default) waits up to 30 s for /readyz to answer 200.
 * @throws Error with the log tail when it exits or does not become ready.
 */
export async function startModuleProcess(o: ModuleProcessOptions): Promise<ModuleProcess> {
  const port = freePort();
  const healthUrl = `http://127.0.0.1:${port}`;
  const logFile = join(o.logDir, `${o.hostname}.log`);
  const proc = startProcess({
    name: `module ${o.hostname}`,
    cmd: [
      ...(o.command ?? [BUN, "src/cli/main.ts"]),
      "run",
      "--name",
      o.name,
      "--version",
      o.version ?? "1.0.0",
      "--namespace",
      o.namespace,
      "--kubeconfig",
      o.kubeconfig,
      "--health-probe-bind-address",
      `127.0.0.1:${port}`,
      "--grpc-server-bind-address",
      "127.0.0.1:0",
      ...(o.components === "" ? [] : ["--components", o.components ?? "test/fixtures/operator-components"]),
      ...(o.args ?? []),
    ],
    cwd: o.cwd ?? ROOT,
    logFile,
    env: { HOSTNAME: o.hostname, TINY_NATS_URL: "", TINYHOST_LOG_LEVEL: "info", ...o.env },
  });
  const get = async (path: string) => {
    try {
      return await fetch(`${healthUrl}${path}`, { signal: AbortSignal.timeout(2000) });
    } catch {
      return undefined;
    }
  };
  const mp: ModuleProcess = {
    ...proc,
    healthUrl,
    logFile,
    async readyz() {
      const r = await get("/readyz");
      if (!r) return undefined;
      return { status: r.status, body: (await r.json()) as { status: string; checks: Record<string, string> } };
    },
    async metrics() {
      const r = await get("/metrics");
      return r ? await r.text() : "";
    },
    async metric(series) {
      const line = (await mp.metrics()).split("\n").find((l) => l.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    },
  };
  if (o.waitReady ?? true) {
    let exited = false;
    void proc.exited.then(() => (exited = true));
    try {
      await waitUntil(
        `${o.hostname} /readyz 200`,
        async () => {
          if (exited) throw new Error("module process exited");
          return (await mp.readyz())?.status === 200;
        },
        30_000,
        100,
      );
    } catch (err) {
      await proc.kill();
      throw new Error(`${(err as Error).message}\n--- ${logFile} ---\n${await tail(logFile, 30)}`);
    }
  }
  return mp;
}
