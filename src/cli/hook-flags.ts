/**
 * Flags shared by the chart's hook commands `pre-install` and `pre-delete` (Go cli/cli.go
 * `applyHookFlags`): `-n, --name`, `--namespace`, `-k, --kubeconfig`, parsed with the shared
 * parser of ./flags.ts. Unlike Go, `--name` is not required: the chart's default hook Jobs run without it,
 * and Go's cobra then stops before the check runs (docs/compatibility.md "Chart hooks").
 */
import { FlagError, parseFlags } from "./flags.ts";
import { TinyError } from "../core/errors.ts";

/** Parsed hook flags; absent = not given. */
export interface HookFlags {
  name?: string;
  namespace?: string;
  kubeconfig?: string;
  /** `pre-install` only: broker URL whose stream and business consumer the hook creates. */
  natsUrl?: string;
  /** `pre-install` only: prepare the broker and skip the namespace check (provision's broker Job; provision labels the namespace itself). */
  brokerOnly?: boolean;
  help: boolean;
}

/** A bad hook flag; the message names it. code `"USAGE"`. */
export class HookUsageError extends TinyError<"USAGE"> {
  /** @param message - names the flag and the value. */
  constructor(message: string) {
    super("USAGE", message);
  }
}

/** The flag lines of a hook's `--help`. */
export const HOOK_FLAGS_HELP = `Flags:
  -n, --name <module>      module name (Go: "Name of the module"; default: see above)
      --namespace <ns>     namespace the module is installed in (default: see above)
  -k, --kubeconfig <path>  kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)
  -h, --help               this text`;

/** The broker flag lines of `pre-install --help`. */
export const BROKER_FLAGS_HELP = `      --nats-url <url>     also create the JetStream streams and the module's business consumer
                           on this broker (the token may be $(VAR), expanded by the kubelet)
      --broker-only        only that: skip the namespace check (provision's broker Job)`;

/**
 * Parses the arguments after the command name. Repeated flags: the last wins (cobra's rule, and
 * the chart appends its own copies after the values' args).
 * @param o.broker - accept `--nats-url` and `--broker-only` (`pre-install`; ours, not Go's).
 * @throws HookUsageError for an unknown flag, a positional argument or a missing/empty value.
 */
export function parseHookFlags(args: readonly string[], o: { broker?: boolean } = {}): HookFlags {
  let parsed;
  try {
    parsed = parseFlags(args, {
      name: { type: "string", short: "n", valueName: "a module name" },
      namespace: { type: "string", valueName: "a namespace" },
      kubeconfig: { type: "string", short: "k", valueName: "a path" },
      help: { type: "boolean", short: "h" },
      ...(o.broker ? { "nats-url": { type: "string" as const, valueName: "a URL" }, "broker-only": { type: "boolean" as const } } : {}),
    });
  } catch (e) {
    if (!(e instanceof FlagError)) throw e;
    throw new HookUsageError(e.message);
  }
  const v = parsed.values;
  const given = (flag: string, value: string | undefined): string | undefined => {
    if (value !== undefined && value.trim() === "") throw new HookUsageError(`--${flag} = ${JSON.stringify(value)} must not be empty`);
    return value;
  };
  const name = given("name", v.name);
  const namespace = given("namespace", v.namespace);
  const kubeconfig = given("kubeconfig", v.kubeconfig);
  const broker = v as { "nats-url"?: string; "broker-only"?: boolean };
  const natsUrl = given("nats-url", broker["nats-url"]);
  return {
    ...(name ? { name } : {}),
    ...(namespace ? { namespace } : {}),
    ...(kubeconfig ? { kubeconfig } : {}),
    ...(natsUrl ? { natsUrl } : {}),
    ...(broker["broker-only"] === true ? { brokerOnly: true } : {}),
    help: v.help === true,
  };
}
