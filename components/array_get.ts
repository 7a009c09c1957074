/**
 * `array_get` — "Array Get" (Go common-module `components/arrayget`): the element of `array` at
 * the 1-based `index`, emitted on `result` as `{context, item, index}` (returns the downstream
 * result). An empty array, an index below 1 or past the end fails the hop with Go's message — or,
 * with `enableErrorPort`, emits `{context, error}` on `error` and returns its result. An agent tool
 * (input `request`, output `result`), as Go's `AgentTool()` declares it.
 */
import { defineComponent, fail, omitEmpty, source, target, TinyError, Type } from "tinyhost";

/** Go writes `context` with `omitempty`: a null context is left out of the output. */
const OMIT_CONTEXT = { interfaces: ["context" as const] };

/** The index does not address an element (the message is Go's). code `"ARRAY_GET_INDEX"`. */
export class ArrayGetIndexError extends TinyError<"ARRAY_GET_INDEX"> {
  constructor(message: string) {
    super("ARRAY_GET_INDEX", message);
  }
}

// Go `arrayget` port types; `$id`s are the Go type names.
const Settings = Type.Object(
  { enableErrorPort: Type.Optional(Type.Boolean({ title: "Enable Error Port", description: "Output errors to error port instead of failing" })) },
  { $id: "Settings" },
);

const Request = Type.Object(
  {
    context: Type.Optional(Type.Unknown({ $id: "Context", configurable: true, title: "Context", description: "Arbitrary context to pass through" })),
    // Go `[]Item`: a missing or null array decodes as a nil slice (null) — "array is empty".
    array: Type.Union([Type.Array(Type.Unknown({ $id: "Item" })), Type.Null()], {
      configurable: true,
      title: "Array",
      description: "Array to get element from",
    }),
    index: Type.Integer({ title: "Index", description: "1-based item number" }),
  },
  { $id: "Request" },
);

const Result = Type.Object(
  {
    context: Type.Optional(Type.Unknown({ $id: "Context", configurable: true, title: "Context" })),
    item: Type.Optional(Type.Unknown({ $id: "Item", configurable: true, title: "Item" })),
    index: Type.Optional(Type.Integer({ title: "Index", description: "1-based index of the returned item" })),
  },
  { $id: "Result" },
);

const ErrorOut = Type.Object(
  {
    context: Type.Optional(Type.Unknown({ $id: "Context", configurable: true, title: "Context" })),
    error: Type.Optional(Type.String({ title: "Error" })),
  },
  { $id: "Error" },
);

/** Why `index` does not address an element of `array` (Go's texts), or undefined when it does. */
function indexProblem(array: readonly unknown[], index: number): string | undefined {
  if (array.length === 0) return "array is empty — run a list command first";
  if (index < 1) return `index must be >= 1, got ${index}`;
  if (index > array.length) return `item #${index} not found — list has ${array.length} item(s)`;
  return undefined;
}

export default defineComponent({
  info: {
    name: "array_get",
    description: "Array Get",
    info: "Get an element from an array by 1-based index. Returns the item or an error if index is out of range. Useful for numbered reference patterns where users select items by number from a previously displayed list.",
    tags: ["SDK", "ARRAY"],
  },
  agentTool: {
    description: "Get an array element by 1-based index. Input: {array, index}; returns {item, index} or an error if the index is out of range.",
    inputPort: "request",
    outputPort: "result",
  },
  state: () => ({ enableErrorPort: false }),
  ports: (self) => [
    // Go publishes `Settings{}` here whatever the settings are (its Ports() builds a fresh value).
    target("_settings", Settings, { label: "Settings", position: "top", default: { enableErrorPort: false } }),
    target("request", Request, { label: "Request", position: "left", default: { array: ["first", "second", "third"], index: 1 } }),
    source("result", Result, { label: "Result", position: "right", default: { item: "first", index: 1 } }),
    ...(self.enableErrorPort ? [source("error", ErrorOut, { label: "Error", position: "bottom", default: { error: "" } })] : []),
  ],
  onSettings(ctx, settings) {
    ctx.self.enableErrorPort = settings.enableErrorPort === true;
  },
  handle(ctx, output, _port, data) {
    const array = data.array ?? [];
    const problem = indexProblem(array, data.index);
    if (problem === undefined)
      return output("result", omitEmpty({ context: data.context, item: array[data.index - 1] ?? null, index: data.index }, OMIT_CONTEXT));
    if (ctx.self.enableErrorPort) return output("error", omitEmpty({ context: data.context, error: problem }, OMIT_CONTEXT));
    return fail(new ArrayGetIndexError(problem));
  },
});
