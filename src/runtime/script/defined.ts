/**
 * A component defined by a TinyComponent resource (runtime-spec §5.3): the script runs like
 * js_eval's with the settings fixed by the resource, under the resource's own name (Go js-module
 * components/eval/defined.go, read for behaviour).
 *
 * - ports: `request` `{context, inputData}` (left) → `response` `{context, outputData}` (right),
 *   `error` `{context, error}` (bottom) with `enableErrorPort`; no `_settings`: the resource is the
 *   settings. The declared input/output JSON Schemas are published as the schemas of `inputData`
 *   and `outputData` (docs/compatibility.md "TinyComponent");
 * - the definition is checked when it is built (name, script, both schemas as JSON objects, the
 *   script compiles and loads), so a broken script is reported on the resource, not at the first
 *   message;
 * - every node gets its own sandbox (a Worker), started at its first message;
 * - tagged `Defined`, like Go's, so listings can tell them from compiled components.
 */
import { Type } from "typebox";
import { defineComponent, type ComponentDefinition } from "../../core/component.ts";
import { source, target } from "../../core/ports.ts";
import { fail } from "../../core/result.ts";
import { compileScript, type ScriptLanguage } from "./compile.ts";
import { ScriptError } from "./errors.ts";
import { loadTimeoutMsOf, timeoutMsOf } from "./limits.ts";
import { ScriptSandbox } from "./sandbox.ts";
import { TinyError } from "../../core/errors.ts";

/** Runtimes this module serves for TinyComponents (`spec.runtime`; empty = `js`). */
export const SCRIPT_RUNTIMES: readonly ScriptLanguage[] = ["js", "ts"];

/** Tag of resource-defined components (Go js-module defined.go `Tags: ["Defined"]`). */
export const DEFINED_TAG = "Defined";

/** What a TinyComponent carries, reduced to what a definition needs (runtime-spec §5.3). */
export interface ScriptDefinition {
  /** Component name (`spec.component`). */
  name: string;
  description?: string;
  info?: string;
  /** `js` or `ts`. */
  runtime: ScriptLanguage;
  /** ES module source default-exporting the function. */
  script: string;
  /** JSON Schema of `inputData`, as a JSON string (v0.13.130: plain string, not base64). */
  inputSchema: string;
  /** JSON Schema of `outputData`, as a JSON string. */
  outputSchema: string;
  enableErrorPort?: boolean;
  /** Per-call time limit, s; 0 = 30 s. No CRD field carries it (runtime-spec §5.3). */
  timeoutSeconds?: number;
}

/** A definition that cannot become a component. code `"INVALID_DEFINITION"`. */
export class InvalidDefinitionError extends TinyError<"INVALID_DEFINITION"> {
  /** @param message - what is wrong. @param options - `cause`, the underlying error if any. */
  constructor(message: string, options?: { cause?: unknown }) {
    super("INVALID_DEFINITION", message, options);
  }
}

function schemaOf(json: string, field: "input" | "output"): Record<string, unknown> {
  if (typeof json !== "string" || json.trim() === "") throw new InvalidDefinitionError(`${field} schema is required`);
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch (err) {
    throw new InvalidDefinitionError(`${field} schema: ${(err as Error).message}`);
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc))
    throw new InvalidDefinitionError(`${field} schema: must be a JSON object, got ${JSON.stringify(json).slice(0, 60)}`);
  return doc as Record<string, unknown>;
}

interface NodeState {
  sandbox: Promise<ScriptSandbox> | undefined;
}

/**
 * Builds the component for `d`, compiling and loading its script once to report problems now.
 * @throws InvalidDefinitionError (`INVALID_DEFINITION`) for an empty name or script or a missing
 *   or non-object schema; ScriptError `SCRIPT_COMPILE`/`SCRIPT_TIMEOUT` (message prefixed
 *   `script: `) when the script does not compile or load; InvalidComponentError for a name that
 *   breaks the component name rule.
 */
export async function defineScriptComponent(d: ScriptDefinition): Promise<ComponentDefinition> {
  if (!d.name) throw new InvalidDefinitionError("component name is required");
  if (!d.script || d.script.trim() === "") throw new InvalidDefinitionError("script is required");
  const input = schemaOf(d.inputSchema, "input");
  const output = schemaOf(d.outputSchema, "output");
  const timeoutMs = timeoutMsOf(d.timeoutSeconds);
  const loadTimeoutMs = loadTimeoutMsOf(d.timeoutSeconds);
  let code: string;
  try {
    code = await compileScript({ main: d.script, language: d.runtime });
    (await ScriptSandbox.start({ code, loadTimeoutMs })).close();
  } catch (err) {
    if (err instanceof ScriptError) throw new ScriptError(err.code, `script: ${err.message}`, { cause: err });
    throw err;
  }
  const example = (s: Record<string, unknown>) => ("example" in s ? s.example : null);
  const context = Type.Unsafe<unknown>({ configurable: true, title: "Context", description: "Arbitrary message to be send alongside with the result" });
  const RequestPublished = Type.Object({ context: Type.Optional(context), inputData: Type.Optional(Type.Unsafe<unknown>(input)) }, { $id: "Request" });
  const ResponsePublished = Type.Object({ context, outputData: Type.Unsafe<unknown>(output) }, { $id: "Response" });
  const RequestAccepted = Type.Object({ context: Type.Optional(Type.Unknown()), inputData: Type.Optional(Type.Unknown()) });
  const ResponseOut = Type.Object({ context: Type.Unknown(), outputData: Type.Unknown() });
  const ErrorOut = Type.Object({ context: Type.Unknown(), error: Type.String() }, { $id: "Error" });
  const enableErrorPort = d.enableErrorPort === true;
  const { toPlatformSchema } = await import("../schema/platform.ts");
  const withPublished = <P extends { configuration: unknown }>(port: P, published: ReturnType<typeof Type.Object>) => ({
    ...port,
    rawSchema: toPlatformSchema(published, port.configuration),
  });

  return defineComponent({
    info: { name: d.name, description: d.description ?? "", info: d.info ?? "", tags: [DEFINED_TAG] },
    state: (): NodeState => ({ sandbox: undefined }),
    ports: () => [
      withPublished(
        target("request", RequestAccepted, { label: "Request", position: "left", default: { context: null, inputData: example(input) } }),
        RequestPublished,
      ),
      withPublished(
        source("response", ResponseOut, { label: "Response", position: "right", default: { context: null, outputData: example(output) } }),
        ResponsePublished,
      ),
      ...(enableErrorPort ? [source("error", ErrorOut, { label: "Error", position: "bottom", default: { context: null, error: "" } })] : []),
    ],
    async handle(ctx, out, _port, data) {
      const msg = data as { context?: unknown; inputData?: unknown };
      const contextValue = msg.context ?? null;
      if (!ctx.self.sandbox) {
        const started = ScriptSandbox.start({
          code,
          loadTimeoutMs,
          onLog: (level, text) => ctx.log[level === "error" ? "error" : level === "warn" ? "warn" : "info"]({ script: d.name }, text),
        });
        ctx.self.sandbox = started.catch((err: unknown) => {
          ctx.self.sandbox = undefined; // the next message tries again
          throw err;
        });
        ctx.nodeSignal.addEventListener(
          "abort",
          () =>
            void started.then(
              (s) => s.close(),
              () => {},
            ),
          { once: true },
        );
      }
      let outputData: unknown;
      try {
        const sandbox = await ctx.self.sandbox;
        outputData = await sandbox.call(msg.inputData, { timeoutMs, signal: ctx.signal });
      } catch (err) {
        if (!enableErrorPort || (err instanceof ScriptError && err.code === "SCRIPT_CANCELLED")) return fail(err);
        return out("error", { context: contextValue, error: (err as Error).message });
      }
      return out("response", { context: contextValue, outputData });
    },
  });
}
