/**
 * `tinyhost run --local <dir>`: runs the TinyProject/TinyFlow/TinyNode manifests of a directory in
 * this process — no cluster, no NATS (src/local). Runs until SIGINT/SIGTERM, then stops every node
 * without onDestroy and writes the state file, so the next run resumes.
 */
import { setupTracing, type TracingHandle } from "../../telemetry/tracing.ts";
import { resolve } from "node:path";
import { LocalHost, type LocalHostOptions } from "../../local/host.ts";
import { logger } from "../../telemetry/log.ts";
import type { ComponentDefinition } from "../../sdk/component.ts";
import { looksLikeFlag } from "../flag-value.ts";
import { componentsDefault, isCompiledBinary } from "../components-source.ts";

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

  --name <module>       module name (default: the nodes' spec.module, else "tinyhost");
                        nodes run when their name's module segment matches it
  --namespace <ns>      namespace reported to components (default "tinysystems")
  --components <dir>    load the component files in <dir>, applying edits live
                        (${componentsDefault({ compiled, bundledFallback: false })}${compiled ? "; not reloaded" : ""})
  --port <n>            listen port of the first http_server node (default $PORT, else ${DEFAULT_LOCAL_PORT})
  --state <file>        state file (default <dir>/.tinyhost/state.json)
  --no-state            keep state in memory only
  --no-watch            do not apply file edits live
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
}

/**
 * Parses the arguments of `run` when `--local` is present.
 * @param env the environment (for `PORT`).
 * @returns the flags, or a usage error message naming the flag and value.
 */
export function parseRunLocalArgs(args: readonly string[], env: Record<string, string | undefined> = process.env): RunLocalFlags | string {
  let dir: string | undefined;
  const flags: Partial<RunLocalFlags> = { watch: true };
  let port: string | undefined = env.PORT;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const [key, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const value = (): string | undefined => (inline !== undefined ? inline : args[++i]);
    switch (key) {
      case "--local": {
        const v = value();
        if (!v || (inline === undefined && looksLikeFlag(v))) return "--local needs a directory";
        dir = v;
        break;
      }
      case "--name":
      case "-n":
      case "--namespace":
      case "--components":
      case "--state":
      case "--health-probe-bind-address":
      case "--port": {
        const v = value();
        // The next argument is the value unless it is another flag; a negative number is a value.
        if (v === undefined || v === "" || (inline === undefined && looksLikeFlag(v))) return `${key} needs a value`;
        if (key === "--name" || key === "-n") flags.name = v;
        else if (key === "--namespace") flags.namespace = v;
        else if (key === "--components") flags.components = v;
        else if (key === "--state") flags.state = v;
        else if (key === "--health-probe-bind-address") flags.healthProbeBindAddress = v;
        else port = v;
        break;
      }
      case "--no-state":
        flags.state = null;
        break;
      case "--no-watch":
        flags.watch = false;
        break;
      default:
        return `unknown argument "${arg}"`;
    }
  }
  if (!dir) return "--local needs a directory";
  let portNumber = DEFAULT_LOCAL_PORT;
  if (port !== undefined && port !== "") {
    portNumber = Number(port);
    if (!Number.isInteger(portNumber) || portNumber < 1 || portNumber > 65535) return `port must be an integer 1–65535, got ${JSON.stringify(port)} (from ${args.some((a) => a.startsWith("--port")) ? "--port" : "PORT"})`;
  }
  return { ...flags, dir, port: portNumber, watch: flags.watch ?? true };
}

/** Components compiled into a standalone binary (the static registry), or undefined in dev. */
async function bundledComponents(dirGiven: boolean): Promise<ComponentDefinition[] | undefined> {
  if (!Bun.isStandaloneExecutable) return undefined;
  void dirGiven; // the binary serves its bundled set plus the directory's files (issue 17)
  // Literal specifier: bundled at build time, evaluated only here.
  const { loadStaticRegistry } = await import("../../runtime/registry/static.ts");
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
  let host: LocalHost;
  try {
    // The health server is the manager's first runnable: /healthz answers during start-up, /readyz
    // turns 200 once every node of the first read was reconciled and signalled.
    host = await LocalHost.start(await localOptions(flags));
  } catch (err) {
    const e = err as Error & { code?: string };
    console.error(`tinyhost run --local: ${e.message}${e.code ? ` [${e.code}]` : ""}`);
    await tracing.shutdown();
    return 1;
  }
  const sig = await untilSignal();
  host.report.line(`${sig}: stopping (state kept${host.statePath ? ` in ${host.statePath}` : " in memory only"})`);
  await host.stop();
  await tracing.shutdown(); // flushes buffered spans
  return 0;
}
