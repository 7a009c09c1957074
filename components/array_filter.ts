/**
 * `array_filter` — "Array Filter" (Go common-module `components/arrayfilter`): keeps the elements
 * of `array` for which the JSONPath predicate `query` answers `true` — evaluated against each item
 * on its own, in the same dialect as kv's query port and `{{…}}` edge expressions — and emits
 * `{context, items, count, total}` on `result` (returns the downstream result).
 *
 * A predicate is a yes-or-no question: an item it cannot be evaluated against, or one for which it
 * answers anything but a boolean, fails the hop (a mistyped field is reported, not filtered away)
 * unless `skipUnevaluable` treats it as not matching. An empty query fails. With `enableErrorPort`
 * failures are emitted as `{context, error}` on `error` instead.
 *
 * Go tags the component `agent_tool` without implementing `AgentTool()`, so the platform lists it as
 * a tool whose calls Go refuses; this port serves the calls (request → result, docs/compatibility.md).
 */
import { compileQuery, defineComponent, fail, goSprint, goTypeName, omitEmpty, source, target, TinyError, Type, type Query } from "tinyhost";

/** Go writes `context` with `omitempty`: a null context is left out of the output. */
const OMIT_CONTEXT = { interfaces: ["context" as const] };

/** A query missing, or not answerable for an item (the messages are Go's). code `"ARRAY_FILTER_QUERY"`. */
export class ArrayFilterQueryError extends TinyError<"ARRAY_FILTER_QUERY"> {
  constructor(message: string) {
    super("ARRAY_FILTER_QUERY", message);
  }
}

// Go `arrayfilter` port types; `$id`s are the Go type names.
const Request = Type.Object(
  {
    context: Type.Optional(Type.Unknown({ $id: "Context", configurable: true, title: "Context", description: "Passthrough, emitted with the result." })),
    array: Type.Union([Type.Array(Type.Unknown()), Type.Null()], {
      title: "Array",
      description: "The items to filter. Map an upstream array straight in: {{$.pods}}.",
    }),
    query: Type.String({
      title: "Query",
      description: "JSONPath predicate evaluated against EACH item, the same dialect kv uses — e.g. $.hasProblem, $.phase == 'Running', $.restarts > 3.",
    }),
  },
  { $id: "Request" },
);

const Result = Type.Object(
  {
    context: Type.Optional(Type.Unknown({ $id: "Context", configurable: true, title: "Context" })),
    items: Type.Optional(
      Type.Union([Type.Array(Type.Unknown()), Type.Null()], { title: "Items", description: "The items the predicate kept, in their original order." }),
    ),
    count: Type.Optional(Type.Integer({ title: "Count", description: "How many matched — wire this to a router to branch on 'any' versus 'none'." })),
    total: Type.Optional(
      Type.Integer({
        title: "Total",
        description: "How many were examined. count == total means the predicate kept everything, which usually means it is wrong.",
      }),
    ),
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

const Settings = Type.Object(
  {
    skipUnevaluable: Type.Optional(
      Type.Boolean({
        title: "Skip Items The Query Cannot Evaluate",
        description:
          "On: an item the predicate cannot be evaluated against is treated as not matching. Off (default): it fails, so a mistyped field name is reported rather than silently filtering everything away.",
      }),
    ),
    enableErrorPort: Type.Optional(Type.Boolean({ title: "Enable Error Port", description: "Output errors to the error port instead of failing the run." })),
  },
  { $id: "Settings" },
);

interface FilterSettings {
  skipUnevaluable: boolean;
  enableErrorPort: boolean;
}

/**
 * Whether `query` keeps `item`: only a boolean answer counts (Go `matches`).
 * @throws Error with the reason when the query cannot be evaluated or answers a non-boolean.
 */
function matches(query: Query, item: unknown): boolean {
  const value = query.evaluate(item);
  if (typeof value !== "boolean") throw new Error(`predicate answered ${goSprint(value)} (${goTypeName(value)}), not true or false`);
  return value;
}

export default defineComponent({
  info: {
    name: "array_filter",
    description: "Array Filter",
    info:
      "Keeps the array elements matching a JSONPath predicate, and counts them. " +
      "The query runs against each item on its own, so $.hasProblem, $.phase == 'Running' and $.restarts > 3 " +
      "all work; it is the same dialect kv's query port uses. Returns items, count and total — wire count into " +
      "a router to branch on whether anything matched at all. " +
      "By default an item the predicate cannot be evaluated against fails the run, so a mistyped field is " +
      "reported instead of silently filtering everything away; turn on skipUnevaluable when a ragged array is " +
      "expected.",
    tags: ["SDK", "ARRAY", "agent_tool"],
  },
  agentTool: { inputPort: "request", outputPort: "result" },
  state: (): FilterSettings => ({ skipUnevaluable: false, enableErrorPort: false }),
  ports: (self) => [
    target("request", Request, { label: "Request", position: "left", default: { array: null, query: "" } }),
    source("result", Result, { label: "Result", position: "right", default: { items: null, count: 0, total: 0 } }),
    target("_settings", Settings, {
      label: "Settings",
      position: "top",
      default: { skipUnevaluable: self.skipUnevaluable, enableErrorPort: self.enableErrorPort },
    }),
    ...(self.enableErrorPort ? [source("error", ErrorOut, { label: "Error", position: "bottom", default: { error: "" } })] : []),
  ],
  onSettings(ctx, settings) {
    ctx.self.skipUnevaluable = settings.skipUnevaluable === true;
    ctx.self.enableErrorPort = settings.enableErrorPort === true;
  },
  handle(ctx, output, _port, data) {
    const self = ctx.self;
    const failWith = (message: string) =>
      self.enableErrorPort ? output("error", omitEmpty({ context: data.context, error: message }, OMIT_CONTEXT)) : fail(new ArrayFilterQueryError(message));
    if (data.query === "") return failWith("query is required — a filter with no predicate is the array it was given");
    const array = data.array ?? [];
    // Go evaluates the text per item, so a query that does not parse fails at the first item (or
    // never, for an empty array) — compiled once here, its error stands for every item.
    let query: Query | undefined;
    let compileError: Error | undefined;
    try {
      query = compileQuery(data.query);
    } catch (err) {
      compileError = err as Error;
    }
    const items: unknown[] = [];
    for (let i = 0; i < array.length; i++) {
      const item = array[i];
      let kept: boolean;
      try {
        if (!query) throw compileError;
        kept = matches(query, item);
      } catch (err) {
        if (self.skipUnevaluable) continue;
        return failWith(
          `query ${JSON.stringify(data.query)} could not be evaluated against item ${i}: ${(err as Error).message} — check the field name, or turn on skipUnevaluable if the array is ragged`,
        );
      }
      if (kept) items.push(item);
    }
    return output("result", omitEmpty({ context: data.context, items, count: items.length, total: array.length }, OMIT_CONTEXT));
  },
});
