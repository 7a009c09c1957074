/**
 * Command dispatch for `tinyhost`. Each sub-command is a small module exporting a {@link Command};
 * adding one means adding it to {@link commands}.
 */
import { componentsCommand } from "./commands/components.ts";
import { demoCommand } from "./commands/demo.ts";
import { provisionCommand } from "./commands/provision.ts";
import { rbacCommand } from "./commands/rbac.ts";
import { runCommand } from "./commands/run.ts";
import { version } from "./version.ts";

/** One sub-command of the CLI. `run` returns the process exit code. */
export interface Command {
  /** Name typed by the user, e.g. `run`. */
  name: string;
  /** One line shown by `tinyhost --help`. */
  summary: string;
  /** Runs the command with the arguments after its name; resolves to the exit code. */
  run(args: string[]): Promise<number>;
}

/** Every registered sub-command, in the order `--help` lists them. */
export const commands: Command[] = [
  {
    name: "version",
    summary: "print the tinyhost version",
    async run() {
      console.log(version);
      return 0;
    },
  },
  runCommand,
  demoCommand,
  componentsCommand,
  provisionCommand,
  rbacCommand,
];

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
  return command.run(rest);
}
