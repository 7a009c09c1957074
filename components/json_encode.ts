/**
 * `json_encode` — "JSON Encoder" (Go encoding-module `components/json/encode`): encodes
 * `request.document` as JSON text and emits `{context, encoded}` on `response`.
 *
 * The text is goccy/go-json's `Marshal` of the document (src/golang/json.ts, checked against goccy
 * in test/conformance/encoding): no spaces, object keys sorted, `<` `>` `&` escaped as `\u003c`…,
 * numbers as Go formats float64 (`1e+21`, `1e-07`). A JSON document always encodes, so the error
 * port (with `enableErrorPort`) only ever carries a value that is not JSON data.
 */
import { defineComponent, fail, GoJsonEncodeError, mark, marshalGoJson, source, target, Type, type Static, unnamed } from "tinyhost";

const Settings = Type.Object(
  { enableErrorPort: Type.Boolean({ title: "Enable Error Port", description: "If error happen, error port will emit an error message" }) },
  { $id: "Settings" },
);
type Settings = Static<typeof Settings>;

const Request = Type.Object(
  {
    context: Type.Optional(
      mark(Type.Unknown({ $id: "Context" }), {
        configurable: true,
        title: "Context",
        description: "Arbitrary message to be send alongside with encoded message",
      }),
    ),
    document: unnamed(mark(Type.Unknown(), { configurable: true, title: "Input object", description: "" })), // Go `any` field: inline
  },
  { $id: "Request" },
);

const Response = Type.Object({ context: Type.Optional(Type.Unknown({ $id: "Context" })), encoded: Type.Optional(Type.String()) }, { $id: "Response" });
const ErrorOut = Type.Object({ context: Type.Optional(Type.Unknown({ $id: "Context" })), error: Type.Optional(Type.String()) }, { $id: "Error" });

export default defineComponent({
  info: { name: "json_encode", description: "JSON Encoder", info: "Encodes input document with JSON", tags: ["json"] },
  state: () => ({ settings: { enableErrorPort: false } as Settings }),
  ports: (self) => [
    target("request", Request, { label: "In", position: "left", default: { context: null, document: null } }),
    source("response", Response, { label: "Out", position: "right", default: { context: null, encoded: "" } }),
    target("_settings", Settings, { label: "Settings", default: self.settings }),
    ...(self.settings.enableErrorPort ? [source("error", ErrorOut, { label: "Error", position: "bottom", default: { context: null, error: "" } })] : []),
  ],
  onSettings(ctx, settings) {
    ctx.self.settings = { enableErrorPort: settings.enableErrorPort };
  },
  handle(ctx, output, _port, data) {
    const context = data.context ?? null;
    let encoded: string;
    try {
      encoded = marshalGoJson(data.document);
    } catch (err) {
      if (!(err instanceof GoJsonEncodeError) || !ctx.self.settings.enableErrorPort) return fail(err);
      return output("error", { context, error: err.message });
    }
    return output("response", { context, encoded });
  },
});
