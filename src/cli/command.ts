/** The shape of a CLI sub-command, shared by the dispatcher (cli.ts) and the command modules. */

/** One sub-command of the CLI. `run` returns the process exit code. */
export interface Command {
  /** Name typed by the user, e.g. `run`. */
  name: string;
  /** One line shown by `tinyhost --help`. */
  summary: string;
  /** Runs the command with the arguments after its name; resolves to the exit code. */
  run(args: string[]): Promise<number>;
}

/** What a command module exports: its name and its entry point (the summary lives in {@link commands}). */
export type CommandRunner = Pick<Command, "name" | "run">;
