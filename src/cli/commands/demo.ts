/**
 * `tinyhost demo` (`npm run demo`): runs examples/hello-api in local mode on PORT (default 8080),
 * state in memory, and prints its URL with curl examples. Ctrl-C stops it.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { CommandRunner } from "../cli.ts";
import { LocalHost } from "../../local/host.ts";
import { localOptions, parseRunLocalArgs, quietRuntimeLogs, untilSignal } from "./run-local.ts";

/** How long the demo waits for the http_server to listen before saying so, ms. */
export const DEMO_LISTEN_TIMEOUT_MS = 15_000;

/** The hello-api example directory: `./examples/hello-api`, else the one next to this source tree. */
export function demoDir(): string | undefined {
  const candidates = [resolve("examples/hello-api"), resolve(import.meta.dir, "../../../examples/hello-api")];
  return candidates.find((d) => existsSync(d));
}

/** The lines printed once the demo listens on `url`. */
export function demoBanner(url: string): string {
  return [
    "",
    `hello-api is running: ${url}`,
    "",
    `  curl -i ${url}/hello                          # GET  → 200 JSON built by the flow`,
    `  curl -i -X POST -d '{"n":1}' ${url}/echo      # POST → 201 echoing the body`,
    `  curl -i -X DELETE ${url}/anything             # other methods → 404 from the router's default port`,
    "",
    "Edit examples/hello-api/*.yaml or components/*.ts and the change applies live. Ctrl-C stops.",
  ].join("\n");
}

/** The `demo` sub-command. Exit codes: 0 clean stop, 1 failure. */
export const demoCommand: CommandRunner = {
  name: "demo",
  async run(args) {
    if (args.includes("--help") || args.includes("-h")) {
      console.log("Usage: tinyhost demo\n\nRuns examples/hello-api with `run --local` on $PORT (default 8080), state in memory.");
      return 0;
    }
    const dir = demoDir();
    if (!dir) {
      console.error("tinyhost demo: examples/hello-api not found; run it from the tinyhost repository");
      return 1;
    }
    const flags = parseRunLocalArgs(["--local", dir, "--no-state"]);
    if (typeof flags === "string") {
      console.error(`tinyhost demo: ${flags}`);
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
    while (!host.client.exposed.has(flags.port) && Date.now() < deadline) await Bun.sleep(50);
    if (host.client.exposed.has(flags.port)) console.log(demoBanner(`http://localhost:${flags.port}`));
    else console.log(`hello-api: the http_server did not report listening on port ${flags.port} within ${DEMO_LISTEN_TIMEOUT_MS / 1000} s; see the errors above`);
    await untilSignal();
    await host.stop();
    return 0;
  },
};
