/**
 * `xml_encode` — "XML Encoder" (Go encoding-module `components/xml/encode`): encodes
 * `request.document` as XML and emits `{context, encoded}` on `response`.
 *
 * The text is Go's `encoding/xml` encoding of the document (src/golang/xml.ts, checked against Go
 * in test/conformance/encoding): a scalar is an element named by its Go type (`<string>hi</string>`,
 * `<float64>1.5</float64>`), null is nothing, a list its elements in turn.
 *
 * Deliberate difference (docs/compatibility.md "encoding-module"): an object's keys, sorted, become
 * child elements (a list repeats the element, null is omitted) where Go refuses every object with
 * `xml: unsupported type: map[string]interface {}`; a key that is not an XML name fails the hop,
 * or with `enableErrorPort` goes to `error`.
 */
import { defineComponent, encodeGoXml, fail, GoXmlError, mark, source, target, Type, type Static, unnamed } from "tinyhost";

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
  info: { name: "xml_encode", description: "XML Encoder", info: "Encodes input document with XML", tags: ["xml"] },
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
      encoded = encodeGoXml(data.document);
    } catch (err) {
      if (!(err instanceof GoXmlError) || !ctx.self.settings.enableErrorPort) return fail(err);
      return output("error", { context, error: err.message });
    }
    return output("response", { context, encoded });
  },
});
