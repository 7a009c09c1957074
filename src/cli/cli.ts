/**
 * Command dispatch for `tinyhost`. Each sub-command is a small module exporting a {@link Command};
 * adding one means adding a {@link lazy} entry to {@link commands}.
 */
import { LogLevelError, logLevelFrom } from "../telemetry/log-level.ts";
import { SDK_CHECKED_VERSION, SDK_VERSION, version } from "../core/version.ts";
import type { Command, CommandRunner } from "./command.ts";

/** Every registered sub-command, in the order `--help` lists them. */
export const commands: Command[] = [
  {
    name: "version",
    summary: "print the tinyhost version, the Go SDK version it implements and the one its tests run against",
    async run(args) {
      const extra = args.find((a) => a !== "-h" && a !== "--help");
      if (extra !== undefined) {
        console.error(`tinyhost version: unknown argument ${JSON.stringify(extra)} (it takes none)`);
        return 2;
      }
      console.log(`${version} (Go SDK ${SDK_VERSION}, tested against ${SDK_CHECKED_VERSION})`);
      return 0;
    },
  },
  lazy("run", "run the module against a cluster, or with --local <dir> from YAML manifests without one", () =>
    import("./commands/run.ts").then((m) => m.runCommand),
  ),
  lazy("demo", "run the hello-api example flow locally on --port / $PORT (default 8080)", () => import("./commands/demo.ts").then((m) => m.demoCommand)),
  lazy("components", "list the components this module serves, with their ports (--json for schemas)", () =>
    import("./commands/components.ts").then((m) => m.componentsCommand),
  ),
  lazy("rpc", "call an agent-tool component with a JSON payload, over NATS or --local (as the platform's MCP tooling)", () =>
    import("./commands/rpc.ts").then((m) => m.rpcCommand),
  ),
  lazy("provision", "install CRDs, NATS, the OTEL collector and this module's release (--dry-run prints YAML)", () =>
    import("./commands/provision.ts").then((m) => m.provisionCommand),
  ),
  lazy("uninstall", "remove what provision installed for a release (--with-addons, --delete-namespace)", () =>
    import("./commands/uninstall.ts").then((m) => m.uninstallCommand),
  ),
  lazy("rbac", "print the module's ServiceAccount, Roles and RoleBindings (--with-cr-helpers)", () => import("./commands/rbac.ts").then((m) => m.rbacCommand)),
  lazy("pre-install", "the chart's pre-install hook: refuse a reserved or unlabelled namespace", () =>
    import("./commands/pre-install.ts").then((m) => m.preInstallCommand),
  ),
  lazy("pre-delete", "the chart's pre-delete hook: delete the module's TinyModule", () => import("./commands/pre-delete.ts").then((m) => m.preDeleteCommand)),
  lazy("tools", "developer tools: rbac-values (chart RBAC overlay), rbac-check, components-info", () =>
    import("./commands/tools.ts").then((m) => m.toolsCommand),
  ),
  lazy("send", "send a message to a node's port in a running flow (--local <dir>, or a cluster's NATS), --wait for the result", () =>
    import("./commands/send.ts").then((m) => m.sendCommand),
  ),
  lazy("eval", "run a flow's evals (the SDK's pkg/evals specs) against it in local mode; exit 1 on a failure", () =>
    import("./commands/eval.ts").then((m) => m.evalCommand),
  ),
  lazy("new", "write a new component and its test (new component <name>), or a runnable flow (new flow <dir>)", () =>
    import("./commands/new.ts").then((m) => m.newCommand),
  ),
];

/**
 * A command whose module loads only when it runs: `tinyhost run --local` never loads the
 * cluster operator or the provisioner, which keeps start-up short (bench/cold-start.ts).
 */
function lazy(name: string, summary: string, load: () => Promise<CommandRunner>): Command {
  return { name, summary, run: async (args) => (await load()).run(args) };
}

/** Text printed by `tinyhost --help`. */
export function helpText(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return [
    `tinyhost ${version} — a TinySystems module runtime on Bun`,
    "",
    "Usage: tinyhost <command> [flags]",
    "",
    "Commands:",
    ...lines,
    "",
    "Run `tinyhost <command> --help` for the flags of one command.",
  ].join("\n");
}

/**
 * Parses argv (without the program name) and runs the chosen command.
 * @returns the exit code: 0 ok, 1 failure, 2 usage error.
 */
export async function runCli(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    console.log(helpText());
    return 0;
  }
  if (name === "--version" || name === "-v") return commands[0]!.run([]);
  const command = commands.find((c) => c.name === name);
  if (!command) {
    console.error(`tinyhost: unknown command "${name}"\n\n${helpText()}`);
    return 2;
  }
  try {
    logLevelFrom(process.env); // before a command loads the logger, which would fail on it less clearly
  } catch (err) {
    if (!(err instanceof LogLevelError)) throw err;
    console.error(`tinyhost: ${err.message}`);
    return 2;
  }
  return command.run(rest);
}
