/**
 * `js_eval` (Go js-module `components/eval`) — "JS Eval": runs the node's script, an ES module
 * whose default-exported function takes `inputData` and returns (or resolves to) `outputData`.
 *
 * Ports and settings are the js-module's (read from components/eval/eval.go): `request`
 * `{context, inputData}` → `response` `{context, outputData}`; with `enableErrorPort` a failure
 * goes to `error` `{context, error}` instead of failing the hop; `_settings` `{enableErrorPort,
 * inputData, outputData, script: {name, content}, modules: [{name, content}], timeoutSeconds}`,
 * `timeoutSeconds` 0 = 30 s. A node of `tinysystems-js-module-v0` therefore moves unchanged to a
 * tinyhost module started under that name.
 *
 * The script runs in a sandbox of its own (src/runtime/script, docs/security.md): modern
 * JavaScript, no process, files, network or timers; a call past its time limit or the memory cap
 * is stopped. Differences from Go (URL imports, module state after a stopped call, rejections
 * with the error port): docs/compatibility.md "js_eval".
 */
import {
  contextField,
  defineComponent,
  fail,
  MAIN_MODULE,
  mark,
  ScriptError,
  source,
  startScript,
  target,
  loadTimeoutMsOf,
  timeoutMsOf,
  Type,
  type ScriptSandbox,
  type Static,
} from "tinyhost";

const SCRIPT_HELP = "Full ECMAScript 5.1 support. Experimental ESM support. Please CDN only ESM modules";

/** Go `Script` / `ScriptItem`: a named ES module. */
const ScriptFile = (id: string) =>
  Type.Object(
    {
      name: Type.String({ title: "File name" }),
      content: mark(Type.String({ title: "Javascript code", format: "code" }), { language: "javascript" }),
    },
    { $id: id },
  );

/** `_settings` as the editor shows it (Go `Settings` with its tags). */
const SettingsPublished = Type.Object(
  {
    enableErrorPort: mark(Type.Boolean({ title: "Enable Error Port", description: "If error happen, error port will emit an error message" }), {
      tab: "Settings",
    }),
    inputData: Type.Optional(
      mark(Type.Unknown(), {
        configurable: true,
        title: "Input object",
        description: "Schema and example data of the script's input. Downstream edges feeding this node must produce this shape.",
        tab: "Settings",
      }),
    ),
    outputData: mark(Type.Unknown(), {
      configurable: true,
      title: "Output object",
      description:
        "Schema and example data of the script's output. REQUIRED: downstream edges from this node are validated against this shape, so leaving it empty makes every edge out of this node unverifiable. Set it to an example of exactly what your script returns.",
      tab: "Settings",
    }),
    script: mark(ScriptFile("Script"), { title: "Script", description: SCRIPT_HELP, tab: "Main script" }),
    modules: mark(
      Type.Array(ScriptFile("ScriptItem"), {
        title: "Modules",
        description: "Full ECMAScript 5.1 support. Experimental ESM support. Please CDN only ESM modules.",
        uniqueItems: true,
      }),
      { tab: "Includes" },
    ),
    timeoutSeconds: Type.Optional(
      mark(
        Type.Integer({
          title: "Timeout (seconds)",
          description:
            "Wall-clock cap for one invocation; a script that exceeds it (e.g. an accidental infinite loop) is interrupted and fails the hop. 0 = default 30.",
        }),
        { tab: "Settings" },
      ),
    ),
  },
  { $id: "Settings" },
);

/**
 * What `_settings` decodes to: Go's decode semantics (src/runtime/schema/decode.ts) make a missing
 * or null field its zero value and a missing list null, so every field may be absent here.
 */
type SettingsIn = { [K in keyof Static<typeof SettingsPublished>]?: Static<typeof SettingsPublished>[K] | null };

/** The settings as the component keeps them (Go `Settings` values). */
export interface JsEvalSettings {
  enableErrorPort: boolean;
  inputData: unknown;
  outputData: unknown;
  script: { name: string; content: string };
  modules: { name: string; content: string }[];
  timeoutSeconds: number;
}

/** Go `defaultEngineSettings`: what a new node shows before its settings arrive. */
export const DEFAULT_SETTINGS: JsEvalSettings = {
  enableErrorPort: false,
  inputData: null,
  outputData: null,
  script: {
    name: MAIN_MODULE,
    content: `import {lodash} from "https://cdn.jsdelivr.net/npm/@esm-bundle/lodash@4.17.21/+esm";
import {typeOf} from "utils.js";
export default function(inp) {
  return lodash.isFunction(typeOf) + typeOf(inp)
}`,
  },
  modules: [{ name: "utils.js", content: "export function typeOf(input) {return typeof input}" }],
  timeoutSeconds: 0,
};

const RequestPublished = Type.Object(
  {
    context: Type.Optional(contextField("Arbitrary message to be send alongside with rendered content")),
    inputData: Type.Optional(mark(Type.Unknown(), { configurable: true, title: "Input data", description: "Input data" })),
  },
  { $id: "Request" },
);
// Go `Response` and `Error`: no field carries a `required` tag, so none is required here.
const Response = Type.Object({ context: Type.Optional(Type.Unknown()), outputData: Type.Optional(Type.Unknown()) }, { $id: "Response" });
const ErrorOut = Type.Object({ context: Type.Optional(Type.Unknown()), error: Type.Optional(Type.String()) }, { $id: "Error" });

interface State {
  settings: JsEvalSettings;
  sandbox: ScriptSandbox | undefined;
  closeOnStop: boolean;
  /** Why the last settings' script did not start; a hop without a sandbox names it. */
  loadError: Error | undefined;
}

function normalise(s: SettingsIn): JsEvalSettings {
  const file = (f: { name?: string | null; content?: string | null } | null | undefined) => ({ name: f?.name ?? "", content: f?.content ?? "" });
  return {
    enableErrorPort: s.enableErrorPort ?? false,
    inputData: s.inputData ?? null,
    outputData: s.outputData ?? null,
    script: file(s.script),
    modules: (s.modules ?? []).map(file),
    timeoutSeconds: s.timeoutSeconds ?? 0,
  };
}

export default defineComponent({
  info: {
    name: "js_eval",
    description: "JS Eval",
    info:
      "Escape hatch: run arbitrary logic inline when no typed component does what you need — reshape data, branch, compute, glue a flow together. No compile step, runs instantly. " +
      "Each invocation is capped by timeoutSeconds (default 30s) — runaway loops are interrupted, not wedged — and by the module's memory cap. Modern JavaScript (ES2024) with ESM imports of the node's own modules; no network, files, timers or process environment. " +
      "Script must export a default function: export default function(inputData) { return { result: inputData.value * 2 }; }. The function receives inputData as its only argument; the return value (or what its promise resolves to) becomes outputData on the response port. " +
      "Context is NOT available inside the script — it passes through automatically from request to response. Define settings.inputData (example of the script's argument) and settings.outputData (example of the script's return) so the validator can check incoming and outgoing edges without running the flow.",
    tags: ["js", "javascript", "engine"],
  },
  state: (): State => ({ settings: DEFAULT_SETTINGS, sandbox: undefined, closeOnStop: false, loadError: undefined }),
  ports: (self) => [
    // Go's configuration is `Request{InputData: settings.InputData}` with `omitempty` on both
    // fields: `{}` until the settings carry an inputData example.
    target("request", RequestPublished, {
      label: "Request",
      position: "left",
      default: self.settings.inputData === null ? {} : { inputData: self.settings.inputData },
    }),
    source("response", Response, { label: "Response", position: "right", default: { context: null, outputData: self.settings.outputData } }),
    target("_settings", SettingsPublished, { label: "Settings", default: self.settings }),
    ...(self.settings.enableErrorPort ? [source("error", ErrorOut, { label: "Error", position: "bottom", default: { context: null, error: "" } })] : []),
  ],
  async onSettings(ctx, raw) {
    const settings = normalise(raw as SettingsIn);
    // Compile before adopting: a script that does not compile fails this reconcile and the node
    // keeps its previous settings and sandbox (Go: OnSettings returns the error).
    let sandbox: ScriptSandbox;
    try {
      sandbox = await startScript(
        { main: settings.script.content, modules: settings.modules },
        { loadTimeoutMs: loadTimeoutMsOf(settings.timeoutSeconds), onLog: (level, text) => logLine(ctx.log, level, text) },
      );
    } catch (err) {
      ctx.self.loadError = err instanceof Error ? err : new Error(String(err));
      throw err;
    }
    ctx.self.loadError = undefined;
    ctx.self.sandbox?.close();
    ctx.self.sandbox = sandbox;
    ctx.self.settings = settings;
    if (!ctx.self.closeOnStop) {
      ctx.self.closeOnStop = true;
      ctx.nodeSignal.addEventListener("abort", () => ctx.self.sandbox?.close(), { once: true });
    }
  },
  async handle(ctx, output, _port, data) {
    const context = data.context ?? null;
    const sandbox = ctx.self.sandbox;
    if (!sandbox) {
      // Go's text, followed by why: the compile error is otherwise only on the node's status/load line.
      const why = ctx.self.loadError;
      if (!why) return fail(new Error("handler is not initialised"));
      const code = why instanceof ScriptError ? why.code : "SCRIPT_COMPILE";
      return fail(new ScriptError(code, `handler is not initialised: ${why.message}`, { cause: why }));
    }
    let outputData: unknown;
    try {
      outputData = await sandbox.call(data.inputData, { timeoutMs: timeoutMsOf(ctx.self.settings.timeoutSeconds), signal: ctx.signal });
    } catch (err) {
      if (!ctx.self.settings.enableErrorPort || (err instanceof ScriptError && err.code === "SCRIPT_CANCELLED")) return fail(err);
      return output("error", { context, error: (err as Error).message });
    }
    return output("response", { context, outputData });
  },
});

function logLine(
  log: { debug(o: object, m?: string): void; info(o: object, m?: string): void; warn(o: object, m?: string): void; error(o: object, m?: string): void },
  level: string,
  text: string,
): void {
  const fn = level === "error" ? log.error : level === "warn" ? log.warn : level === "debug" ? log.debug : log.info;
  fn.call(log, { script: true }, text);
}
