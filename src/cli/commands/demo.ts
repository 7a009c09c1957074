/**
 * `tinyhost demo` (`npm run demo`): runs examples/hello-api in local mode on `--port`, else PORT,
 * else 8080, state in memory, and prints its URL with curl examples and the console's. Ctrl-C stops
 * it. When the http_server cannot bind its port the demo stops and exits 1: a demo that serves
 * nothing is not running. Away from the repository (the compiled binary, another directory) it runs
 * the hello-api flow built into it — the same description examples/generate.ts writes the YAML
 * from — from a temporary directory.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { exampleFiles, helloApi } from "../../../examples/generate.ts";
import type { CommandRunner } from "../command.ts";
import { LocalHost } from "../../local/host.ts";
import { DEFAULT_LOCAL_PORT, localOptions, parseRunLocalArgs, quietRuntimeLogs, untilSignal } from "./run-local.ts";
import { FlagError, parseFlags } from "../flags.ts";

/** How long the demo waits for the http_server to listen before saying so, ms. */
export const DEMO_LISTEN_TIMEOUT_MS = 15_000;

/** The hello-api example directory: `./examples/hello-api`, else the one next to this source tree (not in the compiled binary). */
export function demoDir(): string | undefined {
  const candidates = [resolve("examples/hello-api"), ...(Bun.isStandaloneExecutable ? [] : [resolve(import.meta.dir, "../../../examples/hello-api")])];
  return candidates.find((d) => existsSync(d));
}

/**
 * Writes the built-in hello-api flow into a new temporary directory.
 * @returns the directory and a function that removes it.
 */
export function writeEmbeddedDemo(): { dir: string; remove: () => void } {
  const parent = mkdtempSync(join(tmpdir(), "tinyhost-demo-"));
  const dir = join(parent, "hello-api");
  mkdirSync(dir);
  for (const f of exampleFiles(helloApi())) writeFileSync(join(dir, f.name), f.text, { flag: "wx" });
  return { dir, remove: () => rmSync(parent, { recursive: true, force: true }) };
}

/**
 * The lines printed once the demo listens on `url`.
 * @param embeddedDir where the built-in flow was written, when it runs from there (not from examples/).
 */
export function demoBanner(url: string, embeddedDir?: string): string {
  return [
    "",
    `hello-api is running: ${url}`,
    "",
    `  curl -i ${url}/hello                          # GET  → 200 JSON built by the flow`,
    `  curl -i -X POST -d '{"n":1}' ${url}/echo      # POST → 201 echoing the body`,
    `  curl -i -X DELETE ${url}/anything             # other methods → 404 from the router's default port`,
    "",
    embeddedDir
      ? `The built-in hello-api flow runs from ${embeddedDir} (removed on exit); edits there apply live. Ctrl-C stops.`
      : "Edit examples/hello-api/*.yaml or components/*.ts and the change applies live. Ctrl-C stops.",
  ].join("\n");
}

/** Usage line of `tinyhost demo`. */
export const DEMO_USAGE = `Usage: tinyhost demo [--port <n>] [--console <[host:]port> | --no-console]

Runs examples/hello-api with \`run --local\` on --port, else $PORT, else ${DEFAULT_LOCAL_PORT}; state in memory.
The console (graph, live messages, buttons) is on 127.0.0.1:7878 (else a free port) unless --no-console.`;

/**
 * Parsed arguments of `demo`: `help` for -h/--help, else the raw `--port` value (undefined = from
 * PORT) and the console flag (`--console <addr>` as a string, `--no-console` as false).
 */
export type DemoArgs = { help: true } | { help: false; port?: string; console?: string | false };

/**
 * Parses the arguments of `demo`: `--port <n>`, `--port=<n>`, `-h`/`--help`. A negative number
 * after `--port` is its value (the range check in {@link parseRunLocalArgs} refuses it by name).
 * @returns the arguments, or a usage error naming the argument (unknown flag, missing value).
 */
export function parseDemoArgs(args: readonly string[]): DemoArgs | string {
  let values;
  try {
    values = parseFlags(args, {
      port: { type: "string" },
      console: { type: "string", valueName: "an address" },
      "no-console": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    }).values;
  } catch (e) {
    if (e instanceof FlagError) return e.message;
    throw e;
  }
  if (values.help) return { help: true };
  const consoleFlag: string | false | undefined = values["no-console"] ? false : values.console;
  return { help: false, ...(values.port !== undefined ? { port: values.port } : {}), ...(consoleFlag !== undefined ? { console: consoleFlag } : {}) };
}

/** The one-line message when the demo's http_server could not bind `port`. */
export function demoListenFailure(port: number, inUse: boolean, message: string): string {
  return inUse ? `port ${port} is in use: set PORT or --port` : `cannot listen on port ${port}: ${message}`;
}

/** The `demo` sub-command. Exit codes: 0 clean stop, 1 failure (including a port it cannot bind), 2 usage error. */
export const demoCommand: CommandRunner = {
  name: "demo",
  async run(args) {
    const parsed = parseDemoArgs(args);
    if (typeof parsed === "string") {
      console.error(`tinyhost demo: ${parsed}\n${DEMO_USAGE}`);
      return 2;
    }
    if (parsed.help) {
      console.log(DEMO_USAGE);
      return 0;
    }
    const found = demoDir();
    const embedded = found ? undefined : writeEmbeddedDemo();
    const dir = found ?? embedded!.dir;
    const consoleArgs = parsed.console === false ? ["--no-console"] : parsed.console !== undefined ? ["--console", parsed.console] : [];
    try {
      return await runDemo(dir, parsed, consoleArgs, embedded !== undefined);
    } finally {
      embedded?.remove();
    }
  },
};

/** Runs the demo flow in `dir` until SIGINT/SIGTERM; `embedded` when it is the built-in copy. */
async function runDemo(dir: string, parsed: { port?: string }, consoleArgs: string[], embedded: boolean): Promise<number> {
  const flags = parseRunLocalArgs(["--local", dir, "--no-state", ...(parsed.port !== undefined ? ["--port", parsed.port] : []), ...consoleArgs]);
  if (typeof flags === "string") {
    console.error(`tinyhost demo: ${flags}\n${DEMO_USAGE}`);
    return 2;
  }
  quietRuntimeLogs();
  let host: LocalHost;
  try {
    host = await LocalHost.start(await localOptions(flags));
  } catch (err) {
    const e = err as Error & { code?: string };
    console.error(`tinyhost demo: ${e.message}${e.code ? ` [${e.code}]` : ""}`);
    return 1;
  }
  const deadline = Date.now() + DEMO_LISTEN_TIMEOUT_MS;
  const failure = () => [...host.listenFailures().values()].find((f) => f.port === flags.port);
  while (!host.client.exposed.has(flags.port) && !failure() && Date.now() < deadline) await Bun.sleep(50);
  const failed = failure();
  if (failed && !host.client.exposed.has(flags.port)) {
    await host.stop();
    console.error(`tinyhost demo: ${demoListenFailure(flags.port, failed.inUse, failed.error.message)}`);
    return 1;
  }
  if (host.client.exposed.has(flags.port)) console.log(demoBanner(`http://localhost:${flags.port}`, embedded ? dir : undefined));
  else console.log(`hello-api: the http_server did not report listening on port ${flags.port} within ${DEMO_LISTEN_TIMEOUT_MS / 1000} s; see the errors above`);
  await untilSignal();
  await host.stop();
  return 0;
}
