/**
 * Flags shared by the chart's hook commands `pre-install` and `pre-delete` (Go cli/cli.go
 * `applyHookFlags`): `-n, --name`, `--namespace`, `-k, --kubeconfig`, parsed with `node:util`
 * `parseArgs`. Unlike Go, `--name` is not required: the chart's default hook Jobs run without it,
 * and Go's cobra then stops before the check runs (docs/compatibility.md "Chart hooks").
 */
import { parseArgs } from "node:util";

/** Parsed hook flags; absent = not given. */
export interface HookFlags {
  name?: string;
  namespace?: string;
  kubeconfig?: string;
  help: boolean;
}

/** A bad hook flag; the message names it. code `"USAGE"`. */
export class HookUsageError extends Error {
  /** Stable code. */
  readonly code = "USAGE";
  /** @param message - names the flag and the value. */
  constructor(message: string) {
    super(message);
    this.name = "HookUsageError";
  }
}

/** The flag lines of a hook's `--help`. */
export const HOOK_FLAGS_HELP = `Flags:
  -n, --name <module>      module name (Go: "Name of the module"; default: see above)
      --namespace <ns>     namespace the module is installed in (default: see above)
  -k, --kubeconfig <path>  kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)
  -h, --help               this text`;

/**
 * Parses the arguments after the command name. Repeated flags: the last wins (cobra's rule, and
 * the chart appends its own copies after the values' args).
 * @throws HookUsageError for an unknown flag, a positional argument or a missing/empty value.
 */
export function parseHookFlags(args: readonly string[]): HookFlags {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options: {
        name: { type: "string", short: "n", multiple: true },
        namespace: { type: "string", multiple: true },
        kubeconfig: { type: "string", short: "k", multiple: true },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (e) {
    throw new HookUsageError(e instanceof Error ? e.message : String(e));
  }
  const v = parsed.values;
  const last = (flag: string, values: string[] | undefined): string | undefined => {
    const value = values?.at(-1);
    if (value === undefined) return undefined;
    if (value.trim() === "") throw new HookUsageError(`--${flag} = ${JSON.stringify(value)} must not be empty`);
    return value;
  };
  const name = last("name", v.name);
  const namespace = last("namespace", v.namespace);
  const kubeconfig = last("kubeconfig", v.kubeconfig);
  return { ...(name ? { name } : {}), ...(namespace ? { namespace } : {}), ...(kubeconfig ? { kubeconfig } : {}), help: v.help === true };
}
