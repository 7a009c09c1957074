/**
 * `json_decode` — "JSON Decoder" (Go encoding-module `components/json/decode`): parses the JSON
 * text of `request.encoded` and emits `{context, decoded}` on `response`; the `decoded` setting is
 * an example of the shape, published as the response's schema so downstream edges can be checked.
 *
 * Parsing is goccy/go-json's, the module's JSON package (src/golang/json.ts, checked against goccy
 * in test/conformance/encoding): what it accepts (`01`, raw control characters in strings), what it
 * refuses (numbers beyond float64, nesting past 10000) and its error texts. A failure fails the hop
 * with goccy's message, or with `enableErrorPort` goes to `error` `{context, error}`.
 */
import { contextField, defineComponent, fail, GoJsonError, mark, parseGoJson, source, target, Type, type Static } from "tinyhost";

const Settings = Type.Object(
  {
    enableErrorPort: Type.Boolean({ title: "Enable Error Port", description: "If error happen, error port will emit an error message" }),
    decoded: Type.Optional(
      mark(Type.Unknown({ $id: "Decoded" }), {
        configurable: true,
        title: "Decoded shape",
        description: "Schema and example of the decoded JSON. Downstream edges from this node will be validated against this shape.",
      }),
    ),
  },
  { $id: "Settings" },
);
type Settings = Static<typeof Settings>;

const Request = Type.Object(
  {
    context: Type.Optional(contextField("Arbitrary message to be send alongside with decoded message")),
    encoded: Type.String({ title: "Input string", description: "JSON encoded string", format: "textarea" }),
  },
  { $id: "Request" },
);

const Output = Type.Object(
  {
    context: Type.Optional(Type.Unknown({ $id: "Context" })),
    decoded: Type.Optional(mark(Type.Unknown({ $id: "Decoded" }), { configurable: true })),
  },
  { $id: "Output" },
);

const ErrorOut = Type.Object({ context: Type.Optional(Type.Unknown({ $id: "Context" })), error: Type.Optional(Type.String()) }, { $id: "Error" });

export default defineComponent({
  info: {
    name: "json_decode",
    description: "JSON Decoder",
    info:
      "Parses a JSON string into data the rest of the flow can read. " +
      "SET THE `decoded` SETTING to an example of the JSON you expect — a string has no shape, so without one every downstream edge is unverifiable: an expression like {{$.decoded.user.id}} is accepted when the flow is built and resolves to null at runtime. With an example, the same mistake is caught immediately. Only the shape matters, not the values; one representative object is enough, and for a list one representative element. " +
      "When the payload carries a list of items, wire array_split after this so each item arrives as its own message instead of every downstream node looping. " +
      "Some senders report that they truncated a batch, in a field alongside it. Include that field in the example and check it, or a batch that silently dropped items reads as the complete set.",
    tags: ["json"],
  },
  state: () => ({ settings: { enableErrorPort: false, decoded: null } as Settings }),
  ports: (self) => [
    target("request", Request, { label: "In", position: "left", default: { encoded: "" } }),
    source("response", Output, { label: "Out", position: "right", default: { context: null, decoded: self.settings.decoded ?? null } }),
    target("_settings", Settings, { label: "Settings", default: self.settings }),
    ...(self.settings.enableErrorPort ? [source("error", ErrorOut, { label: "Error", position: "bottom", default: { context: null, error: "" } })] : []),
  ],
  onSettings(ctx, settings) {
    ctx.self.settings = { enableErrorPort: settings.enableErrorPort, decoded: settings.decoded ?? null };
  },
  handle(ctx, output, _port, data) {
    const context = data.context ?? null;
    let decoded: unknown;
    try {
      decoded = parseGoJson(data.encoded);
    } catch (err) {
      if (!(err instanceof GoJsonError) || !ctx.self.settings.enableErrorPort) return fail(err);
      return output("error", { context, error: err.message });
    }
    return output("response", { context, decoded });
  },
});
