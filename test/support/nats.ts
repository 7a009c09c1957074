/**
 * A real nats-server for tests: Debian's binary, JetStream on, a temporary store dir, a free
 * loopback port. Fault tests stop, restart and kill it; the same port and store survive a restart,
 * as a broker restart in production would.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureDebianBinary } from "./debian-package.ts";
import { freePort, startProcess, tail, waitUntil, type ManagedProcess } from "./process.ts";

/** A running (or stopped, restartable) nats-server. */
export interface NatsServer {
  /** `nats://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** HTTP monitoring port (`/varz`, `/healthz`). */
  readonly monitorPort: number;
  /** JetStream store directory (kept across restarts). */
  readonly storeDir: string;
  /** Log file of the server. */
  readonly logFile: string;
  /** Graceful stop (SIGTERM); the store is kept for {@link NatsServer.restart}. */
  stop(): Promise<void>;
  /** SIGKILL, as a crash would. */
  kill(): Promise<void>;
  /** Starts again on the same port and store; resolves when healthy. */
  restart(): Promise<void>;
  /** Stops the server and deletes its store. */
  dispose(): Promise<void>;
}

/** Options for {@link startNats}. */
export interface NatsOptions {
  /** Enable JetStream (default true). */
  jetstream?: boolean;
  /** Server max_payload in bytes (default: the server's 1 MiB). */
  maxPayload?: number;
  /** Client token the server requires (`--auth`; default none), as the provisioned broker does. */
  token?: string;
}

/**
 * Makes sure the `nats-server` binary exists, installing Debian's package when it is missing.
 * @throws Error with one line saying what is missing and what to do.
 */
export function ensureNatsServerBinary(): string {
  return ensureDebianBinary("nats-server");
}

/**
 * Starts a nats-server on free loopback ports and waits until `/healthz` answers.
 * @throws Error with the server log's tail when it does not become healthy within 10 s.
 */
export async function startNats(opts: NatsOptions = {}): Promise<NatsServer> {
  const bin = ensureNatsServerBinary();
  const port = freePort();
  const monitorPort = freePort();
  const dir = mkdtempSync(join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "tinyhost-nats-"));
  const storeDir = join(dir, "store");
  const logFile = join(dir, "nats.log");
  const args = [bin, "-a", "127.0.0.1", "-p", String(port), "-m", String(monitorPort)];
  if (opts.jetstream !== false) args.push("-js", "-sd", storeDir);
  if (opts.token) args.push("--auth", opts.token);
  if (opts.maxPayload) {
    const conf = join(dir, "nats.conf");
    await Bun.write(conf, `max_payload: ${opts.maxPayload}\n`);
    args.push("-c", conf);
  }
  let proc: ManagedProcess | null = null;

  const start = async () => {
    proc = startProcess({ name: "nats-server", cmd: args, logFile });
    const current = proc;
    await waitUntil(
      `nats-server on port ${port}`,
      async () => {
        if (current.exited && (await Promise.race([current.exited.then(() => true), Bun.sleep(0).then(() => false)]))) {
          throw new Error(`nats-server exited:\n${await tail(logFile)}`);
        }
        const res = await fetch(`http://127.0.0.1:${monitorPort}/healthz`);
        return res.ok;
      },
      10_000,
      50,
    );
  };
  await start();

  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    monitorPort,
    storeDir,
    logFile,
    async stop() {
      await proc?.stop();
    },
    async kill() {
      await proc?.kill();
    },
    async restart() {
      await proc?.stop();
      await start();
    },
    async dispose() {
      await proc?.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
