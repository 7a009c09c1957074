/**
 * `tinyhost rpc <module> <component> '<json>'`: calls an agent-tool component as the platform's MCP
 * tooling does (runtime-spec §3.4, §4.5) and prints its answer.
 * - cluster (default): over NATS, on the wire of Go's `wire.PublishRPC` (src/transport/nats/rpc.ts);
 *   any module serving the component answers — tinyhost or Go, core NATS or JetStream;
 * - `--local`: no cluster, no NATS: the component files are loaded here and the call goes through
 *   this process's scheduler, exactly as a module runs it (a fresh instance, src/runtime/scheduler/rpc.ts).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { CommandRunner } from "../command.ts";
import { FlagError, parseFlags } from "../flags.ts";
import { componentsDefault, isCompiledBinary } from "../components-source.ts";
import { DEFAULT_LOCAL_MODULE } from "../../local/constants.ts";
import { sanitizeResourceName } from "../../core/api/naming.ts";
import { withDeadline } from "../../core/timer.ts";
import { messageOf } from "../../core/errors.ts";

/**
 * Help text of `tinyhost rpc`, with the `--components` default of the case it runs in.
 * @param compiled true for the compiled binary's wording; default: this process.
 */
export function rpcUsage(compiled = isCompiledBinary()): string {
  return `Usage: tinyhost rpc <module> <component> '<json>' [flags]

Calls agent-tool component <component> of module <module> with the JSON payload on its input
port and prints the JSON it answers on its output port (a component declares agentTool to be one).
<json> "-" reads the payload from stdin; omitted, the payload is {}.

  --nats-url <url>     NATS server (default $TINY_NATS_URL): publishes to tinymodule.<module>.msg
                       with x-to, x-mode: rpc and x-reply-inbox, as Go's wire.PublishRPC
  --timeout <ms>       how long to wait for the answer (default 30000)
  --local              no cluster: run the component in this process through the scheduler
  --components <dir>   with --local: the component files (${componentsDefault({ compiled, bundledFallback: false })})
  --name <module>      with --local: the module they run as (default ${DEFAULT_LOCAL_MODULE}, as run --local);
                       <module> must be it
  -h, --help           this text

Exit codes: 0 answered, 1 the call failed (the error is printed), 2 usage error.`;
}

interface Call {
  module: string;
  component: string;
  payload: string;
  natsUrl: string | undefined;
  timeoutMs: number;
  local: boolean;
  components: string | undefined;
}

function parse(args: string[], env: Record<string, string | undefined>): Call | "help" {
  const parsed = parseFlags(
    args,
    {
      "nats-url": { type: "string", valueName: "a URL" },
      name: { type: "string", valueName: "a module name" },
      timeout: { type: "string", valueName: "a number of ms" },
      local: { type: "boolean" },
      components: { type: "string", valueName: "a directory" },
      help: { type: "boolean", short: "h" },
    },
    { positionals: true },
  );
  const v = parsed.values;
  if (v.help) return "help";
  const [module, component, payload, ...extra] = parsed.positionals;
  if (!module) throw new FlagError("missing <module>");
  if (!component) throw new FlagError("missing <component>");
  if (extra.length > 0) throw new FlagError(`unexpected argument ${JSON.stringify(extra[0])} (quote the JSON payload as one argument)`);
  let timeoutMs = 30_000;
  if (v.timeout !== undefined) {
    timeoutMs = Number(v.timeout);
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1) throw new FlagError(`--timeout ${JSON.stringify(v.timeout)} must be a positive integer number of ms`);
  }
  if (v.components !== undefined && !v.local) throw new FlagError("--components needs --local");
  if (v.local && v["nats-url"] !== undefined) throw new FlagError("--nats-url and --local exclude each other");
  if (v.name !== undefined && !v.local) throw new FlagError("--name needs --local (on a cluster <module> names the module)");
  if (v.local) {
    // The module the local components run as; a call naming another module would reach nothing on
    // a cluster, so answering it locally would hide a wrong name.
    const local = v.name ?? DEFAULT_LOCAL_MODULE;
    if (sanitizeResourceName(module) !== sanitizeResourceName(local)) {
      throw new FlagError(
        `module ${JSON.stringify(module)} is not the module --local runs (${JSON.stringify(local)}): call ${local}, or pass --name ${module} to run the components as that module`,
      );
    }
  }
  const text = payload === undefined ? "{}" : payload === "-" ? readFileSync(0, "utf8") : payload;
  try {
    JSON.parse(text);
  } catch (e) {
    throw new FlagError(`the payload is not valid JSON: ${messageOf(e)}`);
  }
  const natsUrl = v["nats-url"] ?? env.TINY_NATS_URL;
  if (!v.local && !natsUrl) throw new FlagError("no NATS server: pass --nats-url or set TINY_NATS_URL (or use --local)");
  return { module, component, payload: text, natsUrl, timeoutMs, local: v.local === true, components: v.components };
}

/** The `rpc` sub-command. Exit codes: 0 answered, 1 call failed, 2 usage error. */
export const rpcCommand: CommandRunner = {
  name: "rpc",
  async run(args) {
    let call: Call | "help";
    try {
      call = parse(args, process.env);
    } catch (e) {
      if (!(e instanceof FlagError)) throw e;
      console.error(`tinyhost rpc: ${e.message}\n\n${rpcUsage()}`);
      return 2;
    }
    if (call === "help") {
      console.log(rpcUsage());
      return 0;
    }
    process.env.TINYHOST_LOG_LEVEL ??= "warn";
    const module = sanitizeResourceName(call.module);
    const { errorCode } = await import("../../core/errors.ts");
    const result = call.local ? await callLocal(call, module) : await callNats(call, module);
    if (result.kind === "fail") {
      const err = result.error as Error & { code?: string };
      // A remote error's code is only "REMOTE": the text already says what the module said.
      const code = err.code === "REMOTE" ? undefined : (err.code ?? errorCode(err));
      console.error(`tinyhost rpc: ${err.message.replace(/^rpc: /, "")}${code && !err.message.startsWith(`${code}:`) ? ` [${code}]` : ""}`);
      return 1;
    }
    const value = result.kind === "empty" ? null : result.value;
    console.log(value instanceof Uint8Array ? new TextDecoder().decode(value) : JSON.stringify(value ?? null));
    return 0;
  },
};

async function callNats(call: Call, module: string) {
  const { connectNats } = await import("../../transport/nats/connect.ts");
  const { publishRpc } = await import("../../transport/nats/rpc.ts");
  const { fail } = await import("../../core/result.ts");
  let nc;
  try {
    nc = await connectNats(call.natsUrl!, { name: "tinyhost-rpc" });
  } catch (err) {
    return fail(new Error(`cannot connect to NATS at ${call.natsUrl}: ${messageOf(err)}`));
  }
  try {
    return await publishRpc(nc, module, call.component, new TextEncoder().encode(call.payload), call.timeoutMs);
  } finally {
    await nc.close();
  }
}

async function callLocal(call: Call, module: string) {
  const { fail } = await import("../../core/result.ts");
  let registry;
  try {
    if (call.components === undefined && Bun.isStandaloneExecutable) {
      const { loadStaticRegistry } = await import("../../loader/static.ts");
      registry = loadStaticRegistry();
    } else {
      const { discoverComponents } = await import("../../loader/discover.ts");
      registry = await discoverComponents(resolve(call.components ?? "components"));
    }
  } catch (err) {
    return fail(err);
  }
  const { Scheduler } = await import("../../runtime/scheduler/index.ts");
  const scheduler = new Scheduler({ module });
  for (const def of registry.list()) scheduler.install(def);
  const data = new TextEncoder().encode(call.payload);
  const stop = new AbortController();
  return withDeadline(scheduler.handle({ edgeId: "", from: "", to: call.component, data, depth: 0, mode: "rpc" }, stop.signal), call.timeoutMs, () => {
    stop.abort(new Error("timeout"));
    return fail(new Error(`component ${call.component} did not answer within ${call.timeoutMs} ms`));
  });
}
