/**
 * The shape the Go encoding-module's codec components share (json_encode, xml_encode, jwt_decode,
 * jwt_encode), built once: a `request` port in, a `response` port out with the request's `context` first,
 * `Settings{enableErrorPort}`, and an `error` port `{context, error}` while it is enabled, where a
 * failure of the codec's own kind goes instead of failing the hop. Any other failure fails the hop.
 */
import type { Static, TSchema } from "typebox";
import { Type } from "typebox";
import { defineComponent, type ComponentDefinition, type ComponentInfo } from "../core/component.ts";
import { source, target, type AnyPort } from "../core/ports.ts";
import { fail } from "../core/result.ts";
import { mark, unnamed } from "../runtime/schema/keywords.ts";

/** Go's `enableErrorPort` tag text of most codec components (jwt_decode says "happens"). */
export const ERROR_PORT_DESCRIPTION = "If error happen, error port will emit an error message";

/** The `error` port's payload (Go encoding-module `Error{Context, Error}`): not the SDK's `ErrorMessage`. */
export const CodecErrorSchema = Type.Object(
  { context: Type.Optional(Type.Unknown({ $id: "Context" })), error: Type.Optional(Type.String()) },
  { $id: "Error" },
);

/** One port of a codec component: its schema, its default data and, where Go adjusts it, the published schema. */
export interface CodecPort<T extends TSchema> {
  schema: T;
  default: Static<T>;
  /** Published verbatim instead of the schema (see `PortSpec.rawSchema`). */
  rawSchema?: object;
}

/** What {@link defineCodecComponent} needs: everything that differs between the codec components. */
export interface CodecSpec<Req extends TSchema, Res extends TSchema> {
  info: ComponentInfo;
  request: CodecPort<Req>;
  response: CodecPort<Res>;
  /** Go's tag text for `enableErrorPort`; default {@link ERROR_PORT_DESCRIPTION}. */
  settingsDescription?: string;
  /** The codec's own failure (e.g. `GoJsonEncodeError`): goes to `error` when the port is enabled. */
  failure: abstract new (
    ...args: never[]
  ) => Error;
  /** The codec: the response's fields besides `context`, in Go's order. Throws on failure. */
  run: (data: Static<Req>) => Omit<Static<Res>, "context">;
}

interface CodecState {
  settings: { enableErrorPort: boolean };
}

/**
 * A codec component of the encoding-module's shape (see this file's header): ports `request`
 * ("In", left), `response` ("Out", right), `_settings`, then `error` ("Error", bottom) while
 * `enableErrorPort` is set.
 */
export function defineCodecComponent<Req extends TSchema, Res extends TSchema>(spec: CodecSpec<Req, Res>): ComponentDefinition<readonly AnyPort[]> {
  const Settings = Type.Object(
    { enableErrorPort: Type.Boolean({ title: "Enable Error Port", description: spec.settingsDescription ?? ERROR_PORT_DESCRIPTION }) },
    { $id: "Settings" },
  );
  return defineComponent({
    info: spec.info,
    state: (): CodecState => ({ settings: { enableErrorPort: false } }),
    ports: (self) => [
      target("request", spec.request.schema, { label: "In", position: "left", default: spec.request.default, rawSchema: spec.request.rawSchema }),
      source("response", spec.response.schema, { label: "Out", position: "right", default: spec.response.default, rawSchema: spec.response.rawSchema }),
      target("_settings", Settings, { label: "Settings", default: self.settings }),
      ...(self.settings.enableErrorPort
        ? [source("error", CodecErrorSchema, { label: "Error", position: "bottom", default: { context: null, error: "" } })]
        : []),
    ],
    onSettings(ctx, settings) {
      ctx.self.settings = { enableErrorPort: settings.enableErrorPort };
    },
    handle(ctx, output, _port, data) {
      const request = data as Static<Req> & { context?: unknown };
      const context = request.context ?? null;
      let fields: Omit<Static<Res>, "context">;
      try {
        fields = spec.run(request);
      } catch (err) {
        if (!(err instanceof spec.failure) || !ctx.self.settings.enableErrorPort) return fail(err);
        return output("error", { context, error: err.message });
      }
      return output("response", { context, ...fields } as Static<Res>);
    },
  });
}

const EncoderRequest = Type.Object(
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

const EncoderResponse = Type.Object({ context: Type.Optional(Type.Unknown({ $id: "Context" })), encoded: Type.Optional(Type.String()) }, { $id: "Response" });

/**
 * A document encoder (json_encode, xml_encode: Go encoding-module json/encode and xml/encode, whose
 * structs are the same): `request{context, document}` → `response{context, encoded}`, `encode`'s
 * `failure` to the optional error port.
 */
export function defineDocumentEncoder(spec: {
  info: ComponentInfo;
  failure: CodecSpec<TSchema, TSchema>["failure"];
  /** The text of `document`; throws `failure` for a value it cannot encode. */
  encode: (document: unknown) => string;
}): ComponentDefinition<readonly AnyPort[]> {
  return defineCodecComponent({
    info: spec.info,
    request: { schema: EncoderRequest, default: { context: null, document: null } },
    response: { schema: EncoderResponse, default: { context: null, encoded: "" } },
    failure: spec.failure,
    run: (data) => ({ encoded: spec.encode(data.document) }),
  });
}
