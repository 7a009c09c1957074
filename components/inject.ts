/**
 * `inject` — "Inject" (Go common-module `components/inject`): stores a configuration sent once on
 * `config` and attaches it to every message passing through `message`, emitted on `output` as
 * `{context, config}` (returns the downstream result). The configuration lives in node State
 * (`_state/config`, Go's `json.Marshal` bytes), so it survives restarts; with `configRequired` a
 * message arriving before any configuration goes to `error` as `{context, error: "config not set"}`.
 *
 * Each message reads the stored configuration (parsed once per stored value), so a configuration
 * sent to one replica reaches every replica once the node's status carries it; Go prefers the copy
 * in the instance's memory, which leaves other replicas on an older configuration until they
 * restart (docs/compatibility.md).
 */
import { defineComponent, fail, marshalGoJson, rejectedNow, source, target, Type, type State } from "tinyhost";

/** State key of the configuration (Go `stateKeyConfig`). */
const CONFIG_KEY = "config";

// Go `inject` port types; `$id`s are the Go type names.
const Settings = Type.Object(
  {
    configRequired: Type.Optional(
      Type.Boolean({
        title: "Config Required",
        description: "When enabled, messages arriving before config is set are sent to the error port instead of output",
      }),
    ),
  },
  { $id: "Settings" },
);

const Config = Type.Object(
  { data: Type.Unknown({ $id: "Data", configurable: true, title: "Data", description: "Configuration data to inject into messages" }) },
  { $id: "Config" },
);

const Message = Type.Object(
  { context: Type.Optional(Type.Unknown({ $id: "Context", configurable: true, title: "Context", description: "Passthrough context for correlation" })) },
  { $id: "Message" },
);

const Output = Type.Object(
  {
    context: Type.Optional(Type.Unknown({ $id: "Context", configurable: true, title: "Context" })),
    config: Type.Optional(Type.Unknown({ $id: "Data", title: "Config", description: "Injected configuration from metadata" })),
  },
  { $id: "Output" },
);

const ErrorOutput = Type.Object(
  {
    context: Type.Optional(Type.Unknown({ $id: "Context", configurable: true, title: "Context" })),
    error: Type.Optional(Type.String({ title: "Error" })),
  },
  { $id: "ErrorOutput" },
);

interface InjectSelf {
  configRequired: boolean;
  state: State | undefined;
  /** The configuration when no State is given (an instance without a node). */
  memory: unknown;
  /** The last stored bytes read and their parsed value, so an unchanged configuration is parsed once. */
  cache: { bytes: Uint8Array; value: unknown } | undefined;
}

const dec = new TextDecoder();

/** The stored configuration (`null` when none, or when the stored bytes are not JSON, as in Go). */
async function loadConfig(self: InjectSelf): Promise<unknown> {
  if (!self.state) return self.memory;
  const bytes = await self.state.get(CONFIG_KEY);
  if (bytes === undefined) return null;
  if (self.cache && Buffer.compare(self.cache.bytes, bytes) === 0) return self.cache.value;
  let value: unknown = null;
  try {
    value = JSON.parse(dec.decode(bytes));
  } catch {
    // Go: an unreadable stored value is no configuration.
  }
  self.cache = { bytes, value };
  return value;
}

export default defineComponent({
  info: {
    name: "inject",
    description: "Inject",
    info: "Injects stored configuration into passing messages. Send config once, then every message passing through gets it attached. Config persists across pod restarts via metadata.",
    tags: ["Data", "Config", "Enrich"],
  },
  state: (): InjectSelf => ({ configRequired: false, state: undefined, memory: null, cache: undefined }),
  ports: (self) => [
    target("_reconcile", Type.Unknown(), { label: "", position: "top" }),
    target("_settings", Settings, { label: "Settings", position: "top", default: { configRequired: self.configRequired } }),
    target("config", Config, { label: "Config", position: "top", default: { data: null } }),
    target("message", Message, { label: "Message", position: "left", default: { context: null } }),
    source("output", Output, { label: "Output", position: "right", default: { context: null, config: null } }),
    ...(self.configRequired ? [source("error", ErrorOutput, { label: "Error", position: "bottom", default: { context: null, error: "" } })] : []),
  ],
  onState(ctx, state) {
    ctx.self.state = state;
  },
  onSettings(ctx, settings) {
    ctx.self.configRequired = settings.configRequired === true;
  },
  async handle(ctx, output, port, data) {
    const self = ctx.self;
    if (port === "config") {
      const config = data.data;
      if (!self.state) {
        self.memory = config;
        return;
      }
      const refused = rejectedNow(self.state.set(CONFIG_KEY, marshalGoJson(config, "encoding/json")));
      if (refused) return fail(refused.reason);
      return;
    }
    const context = data.context ?? null;
    const config = await loadConfig(self);
    if (self.configRequired && config === null) return output("error", { context, error: "config not set" });
    return output("output", { context, config });
  },
});
