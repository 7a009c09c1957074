/**
 * `--console <addr>` / `--no-console` of `run --local` and `demo`: the local host's options that add
 * the console (src/console) as one of its runnables and print its URL once it listens.
 */
import { DEFAULT_CONSOLE_ADDRESS, LocalConsole, parseConsoleAddress } from "../console/index.ts";
import type { LocalHostOptions } from "../local/host.ts";

/** The flag's value: an address, `false` for `--no-console`, undefined for the default. */
export type ConsoleFlag = string | false | undefined;

/**
 * The local host options for `flag`: a console runnable in the `servers` group (it listens before
 * the nodes start and stops last), its announcer in the `receivers` group (after the start
 * signals: the discovery file, `console: <url>/` printed), and the debug lines' hint pointing at
 * it; none for `--no-console`.
 * @throws ConsoleAddressError for an address that is not a loopback `[host:]port`.
 */
export function consoleOptions(flag: ConsoleFlag): Pick<LocalHostOptions, "runnables" | "debugHint"> {
  if (flag === false) return {};
  const address = flag === undefined ? DEFAULT_CONSOLE_ADDRESS : parseConsoleAddress(flag);
  let url: string | undefined;
  return {
    runnables: (host) => {
      const c = new LocalConsole(host, {
        address,
        onReady: (u) => {
          url = u;
          host.report.line(`console: ${u}/`);
        },
      });
      return [
        ["servers", c.runnable()],
        ["receivers", c.announcer()],
      ];
    },
    debugHint: () => (url ? `the console shows every one: ${url}/` : undefined),
  };
}
