/**
 * Where the console listens: `--console <addr>` of `run --local` and `demo`. The console's API can
 * send messages into the flow and has no login, so it listens on a loopback address only
 * (127.0.0.0/8, ::1, localhost). Without the flag it takes {@link DEFAULT_CONSOLE_PORT} on 127.0.0.1
 * — the same URL run after run — and any free port when that one is taken (a second `run --local`).
 */
import { BindAddressError, parseBindAddress } from "../server/serve.ts";

/** The console's port when none is given. */
export const DEFAULT_CONSOLE_PORT = 7878;

/** A parsed console address. */
export interface ConsoleAddress {
  hostname: string;
  port: number;
  /** Take any free port when {@link port} is taken (only for the default). */
  fallback: boolean;
}

/** The address used without `--console`. */
export const DEFAULT_CONSOLE_ADDRESS: ConsoleAddress = Object.freeze({ hostname: "127.0.0.1", port: DEFAULT_CONSOLE_PORT, fallback: true });

/** A `--console` value that is not a loopback `[host:]port`. code `BIND_ADDRESS`. */
export class ConsoleAddressError extends BindAddressError {
  /** @param value the rejected value. @param why what is wrong with it. */
  constructor(value: string, why: string) {
    super("--console", value);
    this.message = `--console = ${JSON.stringify(value)}: ${why}`;
    this.name = "ConsoleAddressError";
  }
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Parses a `--console` value: `<port>`, `:<port>` (both on 127.0.0.1), `<host>:<port>` or
 * `[<ipv6>]:<port>`; port 0 means any free port.
 * @throws ConsoleAddressError for a malformed value or a host that is not loopback.
 */
export function parseConsoleAddress(value: string): ConsoleAddress {
  const text = /^\d+$/.test(value) ? `:${value}` : value;
  let parsed;
  try {
    parsed = parseBindAddress(text, "--console");
  } catch {
    throw new ConsoleAddressError(value, `not "[host:]port" with a port 0-65535`);
  }
  if (!parsed) throw new ConsoleAddressError(value, `not "[host:]port" with a port 0-65535 (use --no-console to turn the console off)`);
  const hostname = text.startsWith(":") ? "127.0.0.1" : parsed.hostname;
  if (!isLoopback(hostname))
    throw new ConsoleAddressError(value, `the console has no login, so it listens on a loopback address only (127.0.0.1, ::1, localhost)`);
  return { hostname, port: parsed.port, fallback: false };
}
