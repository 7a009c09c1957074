/**
 * RPC mode (runtime-spec §3.4; Go internal/scheduler/rpc.go): an MCP agent-tool call addressed to
 * a bare component name. The component must declare `agentTool`; the call runs a FRESH instance
 * (its `state()`, no hooks, no settings, no node) with the caller's payload on the tool's input
 * port, and answers with the first emit on its output port — or, when it emitted nothing there,
 * what `handle` returned. Other emits go nowhere (Go answers them `Ok(nil)`).
 *
 * The payload is decoded into the input port's type as Go decodes it (src/runtime/schema/decode.ts:
 * a missing or null field is its zero value, unknown keys are dropped); a type mismatch fails with
 * the component, port and field before `handle` runs.
 */
import type { ComponentDefinition, ComponentInstance } from "../../core/component.ts";
import type { AnyPort } from "../../core/ports.ts";
import type { ComponentContext, ComponentLogger, OutputFn } from "../../core/context.ts";
import { noopTrace } from "../../core/context.ts";
import { empty, fail, ok, toResult, type Result } from "../../core/result.ts";
import type { Msg } from "../../core/hop.ts";
import type { HopScope } from "../runner/scope.ts";
import { compilePortDecoder, type PortDecoder } from "../schema/index.ts";
import { RpcInputError, RpcNotAgentToolError, RpcPortError, RpcUnknownComponentError } from "./errors.ts";
import { messageOf } from "../../core/errors.ts";

/** What an RPC call needs from the scheduler. */
export interface RpcHost {
  /** Sanitized module name (for error messages). */
  readonly module: string;
  /** Live leader flag, handed to the call's context. */
  readonly isLeader: boolean;
  /** The installed definition named `name`. */
  installed(name: string): ComponentDefinition | undefined;
  /** Names of every installed component. */
  componentNames(): string[];
  /** Logger for the call. */
  readonly rpcLog: ComponentLogger;
}

const decoders = new WeakMap<object, PortDecoder>();
const dec = new TextDecoder();

/** The identity a call runs under: no node (Go's RPC instance gets no OnIdentity either). */
const NO_NODE = Object.freeze({ nodeName: "", namespace: "", flowName: "", projectName: "" });

/**
 * Runs the agent-tool call `msg` (`msg.to` = component name, `msg.data` = JSON payload). Never rejects.
 * @returns the first emit on the output port as `ok(value)`, else `handle`'s result; `fail` with
 *   {@link RpcUnknownComponentError}, {@link RpcNotAgentToolError}, {@link RpcPortError} or
 *   {@link RpcInputError} (each naming the component) before `handle` runs.
 */
export async function callAgentTool(host: RpcHost, msg: Msg, scope: HopScope): Promise<Result> {
  const name = msg.to;
  const def = host.installed(name);
  if (!def) return fail(new RpcUnknownComponentError(name, host.module, host.componentNames()));
  const tool = def.agentTool;
  if (!tool) return fail(new RpcNotAgentToolError(name, host.module));
  let instance: ComponentInstance;
  let input: AnyPort | undefined;
  try {
    instance = def.instance();
    input = instance.ports().find((p) => p.name === tool.inputPort);
  } catch (err) {
    return fail(err);
  }
  if (!input || input.source) {
    return fail(new RpcPortError(name, tool.inputPort, input ? "is a source (output) port" : "is not a port of a fresh instance"));
  }
  let data: unknown;
  try {
    data = decode(msg.data);
  } catch (err) {
    return fail(new RpcInputError(name, tool.inputPort, `payload is not valid JSON: ${messageOf(err)}`));
  }
  let decoder = decoders.get(input.schema);
  try {
    if (!decoder) decoders.set(input.schema, (decoder = compilePortDecoder(input.schema)));
  } catch (err) {
    return fail(err);
  }
  const decoded = decoder(data, { keyOrder: "input" }); // a raw payload, decoded as it came (Go: json.Unmarshal)
  if (!decoded.ok) {
    const first = decoded.issues[0]!;
    return fail(new RpcInputError(name, tool.inputPort, `field ${first.path || "$"} breaks rule "${first.rule}": ${first.message}`));
  }
  data = decoded.value;
  let captured: { value: unknown } | undefined;
  const output: OutputFn = (port, value) => {
    if (port === tool.outputPort && !captured) captured = { value };
    return Promise.resolve(empty);
  };
  const log = host.rpcLog;
  const signal = scope.toSignal();
  const ctx: ComponentContext<unknown> = {
    self: instance.self,
    node: NO_NODE,
    isLeader: host.isLeader,
    signal,
    nodeSignal: signal,
    sourceNode: "",
    log,
    trace: noopTrace,
  };
  let result: Result;
  try {
    result = toResult(await instance.handle(ctx, output, tool.inputPort, data));
  } catch (err) {
    result = fail(err);
  }
  if (result.kind === "fail") return result;
  if (captured) return ok(captured.value);
  return result;
}

/** The call's payload: JSON bytes off a wire (empty → `{}`, Go's zero value), or a live value. */
function decode(data: unknown): unknown {
  if (data instanceof Uint8Array) return data.byteLength === 0 ? {} : JSON.parse(dec.decode(data));
  if (typeof data === "string") return data === "" ? {} : JSON.parse(data);
  return data ?? {};
}
