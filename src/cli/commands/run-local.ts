/**
 * `tinyhost run --local <dir>`: runs the TinyProject/TinyFlow/TinyNode manifests of a directory in
 * this process — no cluster, no NATS (src/local). Runs until SIGINT/SIGTERM, then stops every node
 * without onDestroy and writes the state file, so the next run resumes.
 */
import type { ComponentLogger } from "../../core/context.ts";
import { setupTracing, type TracingHandle } from "../../telemetry/tracing.ts";
import { resolve } from "node:path";
import { LocalHost, type LocalHostOptions } from "../../local/host.ts";
import { logger } from "../../telemetry/log.ts";
import type { ComponentDefinition } from "../../core/component.ts";
import { FlagError, parseFlags } from "../flags.ts";
import { isCompiledBinary } from "../components-source.ts";
import { consoleOptions, type ConsoleFlag } from "../console-flag.ts";
import { parseConsoleAddress } from "../../console/address.ts";
import { installLastResort } from "../last-resort.ts";

/** Default HTTP port of local mode when neither `--port` nor `PORT` is set. */
export const DEFAULT_LOCAL_PORT = 8080;

/**
 * Help text of `tinyhost run --local`, with the `--components` default of the case it runs in
 * (components-source.ts).
 * @param compiled true for the compiled binary's wording; default: this process.
 */
export function runLocalUsage(compiled = isCompiledBinary()): string {
  return `Usage: tinyhost run --local <dir> [flags]

Runs the TinyProject/TinyFlow/TinyNode manifests (*.yaml, *.yml) in <dir> without a cluster.
Edits to the manifests and to component files apply live; node state is kept in
<dir>/.tinyhost/state.json so a restart resumes (an old <dir>/.tinyhost-state.json is
moved there once); a lock next to it lets only one process run on the same state. A failed
hop is printed once, at the node where it failed.

  --name <module>       run only this module and the platform's common, http and encoding
                        modules (default: every module of <dir>, each under its own name)
  --namespace <ns>      namespace reported to components (default "tinysystems")
  --components <dir>    add the component files in <dir> to the bundled ones (a file replaces
                        a bundled component of its name), applying edits live
                        (without it: ${compiled ? "the components compiled into this binary" : "the files of ./components, edits live"})
  --port <n>            listen port of the first http_server node (default $PORT, else ${DEFAULT_LOCAL_PORT})
  --state <file>        state file (default <dir>/.tinyhost/state.json)
  --no-state            keep state in memory only
  --no-watch            do not apply file edits live
  --console <[host:]port>
                        serve the console (graph, live messages, buttons) on this
                        loopback address (default 127.0.0.1:7878, else a free port)
  --no-console          do not serve the console
  --health-probe-bind-address <addr>
                        serve /healthz, /readyz (200 once every node was reconciled) and
                        /metrics on <addr>, e.g. 127.0.0.1:8081 or :0 (default: off)`;
}

/** Parsed flags of `run --local`. */
export interface RunLocalFlags {
  dir: string;
  name?: string;
  namespace?: string;
  components?: string;
  port: number;
  state?: string | null;
  watch: boolean;
  /** `--health-probe-bind-address`; absent → no health listener. */
  healthProbeBindAddress?: string;
  /** `--console <addr>` (a string), `--no-console` (false); absent → the default address. */
  console?: ConsoleFlag;
}

/** Flags of `run --local` (parsed by src/cli/flags.ts). */
export const RUN_LOCAL_FLAGS = {
  local: { type: "string", valueName: "a directory" },
  name: { type: "string", short: "n" },
  namespace: { type: "string" },
  components: { type: "string", valueName: "a directory" },
  port: { type: "string" },
  state: { type: "string", valueName: "a file" },
  "no-state": { type: "boolean" },
  "no-watch": { type: "boolean" },
  "health-probe-bind-address": { type: "string" },
  console: { type: "string", valueName: "an address" },
  "no-console": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/**
 * Parses the arguments of `run` when `--local` is present.
 * @param env the environment (for `PORT`).
 * @returns the flags, or a usage error message naming the flag and value.
 */
export function parseRunLocalArgs(args: readonly string[], env: Record<string, string | undefined> = process.env): RunLocalFlags | string {
  let v;
  try {
    v = parseFlags(args, RUN_LOCAL_FLAGS).values;
  } catch (e) {
    if (e instanceof FlagError) return e.message;
    throw e;
  }
  const dir = v.local;
  if (!dir) return "--local needs a directory";
  const flags: Partial<RunLocalFlags> = {
    ...(v.name !== undefined ? { name: v.name } : {}),
    ...(v.namespace !== undefined ? { namespace: v.namespace } : {}),
    ...(v.components !== undefined ? { components: v.components } : {}),
    ...(v["health-probe-bind-address"] !== undefined ? { healthProbeBindAddress: v["health-probe-bind-address"] } : {}),
    ...(v["no-state"] ? { state: null } : v.state !== undefined ? { state: v.state } : {}), // --no-state wins over --state
  };
  const watch = !v["no-watch"];
  const port = v.port ?? env.PORT;
  if (v["no-console"])
    flags.console = false; // --no-console wins over --console
  else if (v.console !== undefined) flags.console = v.console;
  if (typeof flags.console === "string") {
    try {
      parseConsoleAddress(flags.console);
    } catch (err) {
      return (err as Error).message;
    }
  }
  let portNumber = DEFAULT_LOCAL_PORT;
  if (port !== undefined && port !== "") {
    portNumber = Number(port);
    if (!Number.isInteger(portNumber) || portNumber < 1 || portNumber > 65535)
      return `port must be an integer 1–65535, got ${JSON.stringify(port)} (from ${args.some((a) => a.startsWith("--port")) ? "--port" : "PORT"})`;
  }
  return { ...flags, dir, port: portNumber, watch };
}

/**
 * The bundled components (the static registry) when they are not the files local mode loads: in
 * the compiled binary always, from source when `--components` names another directory — its files
 * add to the bundled set in both, as `tinyhost components --components` lists them. From source
 * without it, undefined: `./components` is loaded (and reloaded live) as files.
 */
export async function bundledComponents(dirGiven: boolean): Promise<ComponentDefinition[] | undefined> {
  if (!Bun.isStandaloneExecutable && !dirGiven) return undefined;
  // Literal specifier: bundled at build time, evaluated only here.
  const { loadStaticRegistry } = await import("../../loader/static.ts");
  return loadStaticRegistry().list();
}

/** Local-mode options from parsed flags. */
export async function localOptions(flags: RunLocalFlags): Promise<LocalHostOptions> {
  const components = await bundledComponents(flags.components !== undefined);
  return {
    dir: resolve(flags.dir),
    ...(flags.components !== undefined ? { componentsDir: resolve(flags.components) } : {}),
    ...(components ? { components } : {}),
    ...(flags.name !== undefined ? { moduleName: flags.name } : {}),
    ...(flags.namespace !== undefined ? { namespace: flags.namespace } : {}),
    ...(flags.state !== undefined ? { statePath: flags.state === null ? null : resolve(flags.state) } : {}),
    httpPort: flags.port,
    watch: flags.watch,
    ...(flags.healthProbeBindAddress !== undefined ? { healthProbeBindAddress: flags.healthProbeBindAddress } : {}),
    ...consoleOptions(flags.console),
  };
}

/** Resolves on the first SIGINT or SIGTERM. */
export function untilSignal(): Promise<string> {
  return new Promise((resolveSignal) => {
    const on = (sig: string) => () => {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      resolveSignal(sig);
    };
    const onInt = on("SIGINT");
    const onTerm = on("SIGTERM");
    process.on("SIGINT", onInt);
    process.on("SIGTERM", onTerm);
  });
}

/** Quiet runtime JSON logs unless the user chose a level: the local log is the human one. */
export function quietRuntimeLogs(): void {
  if (!process.env.TINYHOST_LOG_LEVEL) logger.level = "warn";
}

/**
 * Runs local mode with `args` (the arguments of `run`, including `--local <dir>`).
 * @returns the exit code: 0 after a clean stop, 1 when start-up failed, 2 for a usage error.
 */
export async function runLocal(args: readonly string[]): Promise<number> {
  const flags = parseRunLocalArgs(args);
  if (typeof flags === "string") {
    console.error(`tinyhost run: ${flags}\n\n${runLocalUsage()}`);
    return 2;
  }
  quietRuntimeLogs();
  let tracing: TracingHandle;
  try {
    // Same OTLP variables as cluster mode; the SDK loads only when one is set (cold start).
    tracing = await setupTracing({ serviceName: flags.name ?? "tinyhost-local" });
  } catch (err) {
    console.error(`tinyhost run --local: ${(err as Error).message}`);
    return 1;
  }
  // A throw that escaped every node guard is logged and counted; the other nodes keep serving.
  // Until the host exists its lines go to the JSON logger; from then on through the host's
  // logger, so they read as terminal lines like every other error of local mode.
  let lastResortLog: ComponentLogger = logger;
  const removeLastResort = installLastResort({
    debug: (o, m) => lastResortLog.debug(o, m),
    info: (o, m) => lastResortLog.info(o, m),
    warn: (o, m) => lastResortLog.warn(o, m),
    error: (o, m) => lastResortLog.error(o, m),
  });
  let host: LocalHost;
  try {
    // The health server is the manager's first runnable: /healthz answers during start-up, /readyz
    // turns 200 once every node of the first read was reconciled and signalled.
    host = await LocalHost.start(await localOptions(flags));
    lastResortLog = host.log;
  } catch (err) {
    const e = err as Error & { code?: string };
    console.error(`tinyhost run --local: ${e.message}${e.code ? ` [${e.code}]` : ""}`);
    removeLastResort();
    await tracing.shutdown();
    return 1;
  }
  const sig = await untilSignal();
  host.report.line(`${sig}: stopping (state kept${host.statePath ? ` in ${host.statePath}` : " in memory only"})`);
  await host.stop();
  removeLastResort();
  await tracing.shutdown(); // flushes buffered spans
  return 0;
}
