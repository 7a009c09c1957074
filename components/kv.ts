/**
 * `kv` — "Key-Value Store" (Go common-module `components/kv`): documents kept in node State, one
 * key per document — the value of its `primaryKey` field — holding Go's `json.Marshal` bytes
 * (`status.metadata["_state/<key>"]`), so the store survives restarts and every replica sees it
 * through the node's status (Go's metadata State backend).
 *
 * - `store` `{operation: "store"|"delete", document}`: the primary key must be a non-empty string;
 *   a stored document is at most 32 KiB of JSON, a new key needs room under `maxRecords`, and the
 *   node's 900 KiB state budget must hold it. Then `_control` is re-published (record count) and,
 *   with `enableStoreAckPort`, `{context, request}` is emitted on `store_ack` (its result returned).
 * - `query` `{query}`: every record for which the JSONPath predicate answers `true` (the edge
 *   expression dialect; a record it cannot be evaluated against is skipped), or all records for an
 *   empty query, as `{context, results: [{key, document}], count, query}` on `query_result` in key
 *   order (returns the downstream result).
 * - `_control` Reset deletes every record (on every pod, as in Go).
 * Read-modify-writes of one pod run one at a time, so `maxRecords` holds exactly on that pod.
 */
import {
  compileQuery,
  defineComponent,
  fail,
  goTypeName,
  marshalGoJson,
  omitEmpty,
  rejectedNow,
  SerialQueue,
  source,
  stringEnum,
  target,
  TinyError,
  toPlatformSchema,
  Type,
  type Emitter,
  type JsonSchemaObject,
  type PlatformSchema,
  type Query,
  type State,
  type TSchema,
} from "tinyhost";

/** Go writes `context` with `omitempty`: a null context is left out of the output. */
const OMIT_CONTEXT = { interfaces: ["context" as const] };

const DEFAULT_MAX_RECORDS = 100;
/** Largest stored document, bytes of JSON (Go `maxRecordSizeBytes`). */
const MAX_RECORD_BYTES = 32 * 1024;
const DEFAULT_DOCUMENT = { id: "ID" };

/** A settings value kv cannot work with (Go's texts). code `"KV_SETTINGS"`. */
export class KvSettingsError extends TinyError<"KV_SETTINGS"> {
  constructor(message: string) {
    super("KV_SETTINGS", message);
  }
}

/** A store/delete request kv refuses (Go's texts). code `"KV_STORE"`. */
export class KvStoreError extends TinyError<"KV_STORE"> {
  constructor(message: string, options?: { cause?: unknown }) {
    super("KV_STORE", message, options);
  }
}

// Go `kv` port types; `$id`s are the Go type names. A Document is a Go map: it decodes as a map
// (keys kept as sent) and publishes as Go's PrepareJSONSchema shapes it (goDocument below).
function documentField(options: Record<string, unknown>) {
  return Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], { $id: "Document", ...options });
}

const Settings = Type.Object(
  {
    document: documentField({
      configurable: true,
      title: "Document",
      description: "Structure of stored documents. Values are arbitrary. Make sure the document has the primary key defined below.",
    }),
    primaryKey: Type.String({ title: "Primary Key", default: "id" }),
    maxRecords: Type.Optional(
      Type.Integer({
        title: "Max Records",
        description: "Maximum number of records (0 = default 100). The real ceiling is the node's ~900KB total state byte budget, not the record count.",
        default: DEFAULT_MAX_RECORDS,
      }),
    ),
    enableStoreAckPort: Type.Boolean({ title: "Enable Store Ack Port", description: "Emits acknowledgment after store/delete operations" }),
  },
  { $id: "Settings" },
);

const StoreContext = (configurable: boolean) =>
  Type.Optional(Type.Unknown({ $id: "StoreContext", title: "Context", ...(configurable ? { configurable: true } : {}) }));
const QueryContext = (configurable: boolean) =>
  Type.Optional(Type.Unknown({ $id: "QueryContext", title: "Context", ...(configurable ? { configurable: true } : {}) }));

const storeRequestFields = {
  context: StoreContext(true),
  operation: stringEnum(["store", "delete"], { enumTitles: ["Store", "Delete"], default: "store", title: "Operation" }),
  document: documentField({ title: "Document", description: "Document to store or delete" }),
};
const StoreRequest = Type.Object(storeRequestFields, { $id: "StoreRequest" });

const StoreAck = Type.Object(
  { context: StoreContext(false), request: Type.Optional(Type.Object(storeRequestFields, { $id: "StoreRequest", title: "Request" })) },
  { $id: "StoreAck" },
);

const QueryRequest = Type.Object(
  {
    context: QueryContext(true),
    query: Type.String({ title: "Query", description: "JSONPath expression evaluated against each record (e.g. $.status == 'DOWN')" }),
  },
  { $id: "QueryRequest" },
);

const QueryResultItem = Type.Object(
  { key: Type.Optional(Type.String({ title: "Key" })), document: Type.Optional(documentField({ title: "Document" })) },
  { $id: "QueryResultItem" },
);

const QueryResult = Type.Object(
  {
    context: QueryContext(false),
    results: Type.Optional(Type.Union([Type.Array(QueryResultItem), Type.Null()], { title: "Results" })),
    count: Type.Optional(Type.Integer({ title: "Count" })),
    query: Type.Optional(Type.String({ title: "Query" })),
  },
  { $id: "QueryResult" },
);

const Control = Type.Object(
  { records: Type.Optional(Type.Integer({ title: "Records", readonly: true })), reset: Type.Boolean({ title: "Reset", format: "button" }) },
  { $id: "Control" },
);

type Document = Record<string, unknown>;

interface KvSettings {
  document: Document;
  primaryKey: string;
  maxRecords: number;
  enableStoreAckPort: boolean;
}

interface KvSelf {
  settings: KvSettings;
  state: State | undefined;
  emit: Emitter | undefined;
  /** Keys in State when last counted (what `_control` shows). */
  records: number;
  readonly serial: SerialQueue;
  /** Published schemas by port, for the settings they were made with. */
  published: { settings: KvSettings; schemas: Map<string, PlatformSchema> } | undefined;
}

/**
 * Go's `Document` def: its `PrepareJSONSchema` gives a map without properties an `id` property
 * (required, a string, no `propertyOrder`); the live map's member type stays in
 * `additionalProperties` as the SDK reflects it (src/runtime/schema/platform.ts: Go types it after
 * one member, so members of several types publish none).
 */
function goDocument(def: JsonSchemaObject): JsonSchemaObject {
  const { properties: _p, required: _r, ...rest } = def;
  return { ...rest, required: ["id"], properties: { id: { title: "ID", type: "string" } } };
}

/**
 * The port's schema as Go publishes it: the SDK's reflection, then Go's Document def; `store_ack`'s
 * two StoreContext fields share one def in Go (the request's, configurable, at the ack's path).
 */
function publish(port: string, schema: TSchema, value: unknown): PlatformSchema {
  const out = toPlatformSchema(schema, value);
  const defs = out.$defs ?? {};
  for (const [name, def] of Object.entries(defs)) if (/^Document\d*$/.test(name)) defs[name] = goDocument(def);
  if (port === "store_ack" && defs.Storecontext2) {
    defs.Storecontext = { ...defs.Storecontext, configurable: true };
    delete defs.Storecontext2;
    const request = defs.Storerequest as { properties?: Record<string, JsonSchemaObject> } | undefined;
    if (request?.properties?.context) request.properties.context = { ...request.properties.context, $ref: "#/$defs/Storecontext" };
  }
  return out;
}

const dec = new TextDecoder();

/** A stored record as a document, or undefined when it is not a JSON object (Go: Unmarshal into the map fails). */
function asDocument(value: unknown): Document | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Document) : undefined;
}

async function countRecords(state: State | undefined): Promise<number> {
  return state ? (await state.list()).length : 0;
}

export default defineComponent({
  info: {
    name: "kv",
    description: "Key-Value Store",
    info: 'Key-value store backed by TinyNode metadata via the SDK State primitive. Stores documents with a configurable schema and primary key. Supports JSONPath queries. Multi-replica safe — all common-module replicas observe the same store via the K8s watch. Document VALUES ARE STRINGS: a count or a flag must be converted before it is stored (an expression can do it, e.g. "" + $.count), and comes back as a string to be parsed by whatever reads it.',
    tags: ["KV", "Storage", "Data"],
  },
  state: (): KvSelf => ({
    settings: { document: { ...DEFAULT_DOCUMENT }, primaryKey: "id", maxRecords: DEFAULT_MAX_RECORDS, enableStoreAckPort: false },
    state: undefined,
    emit: undefined,
    records: 0,
    serial: new SerialQueue(),
    published: undefined,
  }),
  ports: (self) => {
    const s = self.settings;
    const doc = s.document;
    const defaults = {
      // Go's `json:"document,omitempty"` never drops it: settings without fields are refused.
      _settings: { document: doc, primaryKey: s.primaryKey, maxRecords: s.maxRecords, enableStoreAckPort: s.enableStoreAckPort },
      store: { operation: "store", document: doc },
      query_result: { results: [{ key: "", document: doc }], count: 0, query: "" },
      store_ack: { request: { operation: "", document: doc } },
    };
    if (self.published?.settings !== s) {
      const schemas = new Map<string, PlatformSchema>();
      schemas.set("_settings", publish("_settings", Settings, defaults._settings));
      schemas.set("store", publish("store", StoreRequest, defaults.store));
      schemas.set("query_result", publish("query_result", QueryResult, defaults.query_result));
      schemas.set("store_ack", publish("store_ack", StoreAck, defaults.store_ack));
      self.published = { settings: s, schemas };
    }
    const raw = (port: string) => self.published!.schemas.get(port)!;
    return [
      target("_reconcile", Type.Unknown(), { label: "", position: "top" }),
      target("_settings", Settings, { label: "Settings", position: "top", default: defaults._settings, rawSchema: raw("_settings") }),
      source("_control", Control, { label: "Control", position: "top", default: { records: self.records, reset: false } }),
      target("store", StoreRequest, { label: "Store", position: "left", default: defaults.store, rawSchema: raw("store") }),
      target("query", QueryRequest, { label: "Query", position: "left", default: { query: "$.status == 'DOWN'" } }),
      source("query_result", QueryResult, { label: "Query Result", position: "right", default: defaults.query_result, rawSchema: raw("query_result") }),
      ...(s.enableStoreAckPort
        ? [source("store_ack", StoreAck, { label: "Store Ack", position: "right", default: defaults.store_ack, rawSchema: raw("store_ack") })]
        : []),
    ];
  },
  async onState(ctx, state) {
    ctx.self.state = state;
    ctx.self.records = await countRecords(state);
  },
  onEmitter(ctx, emit) {
    ctx.self.emit = emit;
  },
  async onReconcile(ctx) {
    // Records stored by another replica (or before a restart) arrive with the node: count them.
    const self = ctx.self;
    const records = await countRecords(self.state);
    if (records === self.records) return;
    self.records = records;
    void self.emit?.("_control");
  },
  onSettings(ctx, settings) {
    const document = settings.document ?? {};
    if (Object.keys(document).length === 0) throw new KvSettingsError("document must have at least one field");
    if (settings.primaryKey === "") throw new KvSettingsError("primary key cannot be empty");
    if (!Object.hasOwn(document, settings.primaryKey)) throw new KvSettingsError(`primary key ${JSON.stringify(settings.primaryKey)} not found in document`);
    ctx.self.settings = {
      document,
      primaryKey: settings.primaryKey,
      maxRecords: settings.maxRecords && settings.maxRecords > 0 ? settings.maxRecords : DEFAULT_MAX_RECORDS,
      enableStoreAckPort: settings.enableStoreAckPort,
    };
  },
  async onControl(ctx, control, output) {
    const self = ctx.self;
    if ((control as { reset?: unknown }).reset !== true) return;
    const state = self.state;
    if (state) {
      await self.serial.run(async () => {
        for (const key of await state.list()) void state.delete(key); // readable at once; persisted by the next status write
      });
    }
    self.records = await countRecords(state);
    void output("_control");
  },
  async handle(ctx, output, port, data) {
    const self = ctx.self;
    const state = self.state;
    if (port === "query") {
      if (!state) return fail(new Error("state backend not available"));
      let query: Query | undefined;
      try {
        query = data.query === "" ? undefined : compileQuery(data.query);
      } catch {
        query = { source: data.query, evaluate: () => undefined }; // Go: every record's Eval fails → no match
      }
      const results: { key: string; document: Document }[] = [];
      for (const key of await state.list()) {
        const bytes = await state.get(key);
        if (bytes === undefined) continue;
        let value: unknown;
        try {
          value = JSON.parse(dec.decode(bytes));
        } catch {
          continue;
        }
        if (query) {
          try {
            if (query.evaluate(value) !== true) continue;
          } catch {
            continue;
          }
        }
        const document = asDocument(value);
        if (document) results.push({ key, document });
      }
      return output("query_result", omitEmpty({ context: data.context, results, count: results.length, query: data.query }, OMIT_CONTEXT));
    }

    const { primaryKey: pk, maxRecords, enableStoreAckPort } = self.settings;
    const document = data.document;
    if (document === null || !Object.hasOwn(document, pk)) return fail(new KvStoreError(`primary key ${JSON.stringify(pk)} not found in document`));
    const key = document[pk];
    if (typeof key !== "string") return fail(new KvStoreError(`primary key must be a string, got ${goTypeName(key)}`));
    if (key === "") return fail(new KvStoreError("primary key cannot be empty"));
    if (!state) return fail(new Error("state backend not available"));

    const refusal = await self.serial.run(async (): Promise<KvStoreError | undefined> => {
      if (data.operation === "delete") {
        void state.delete(key);
        return undefined;
      }
      if (data.operation !== "store") return new KvStoreError(`unknown operation: ${data.operation}`);
      const json = marshalGoJson(document, "encoding/json");
      const size = Buffer.byteLength(json, "utf8");
      if (size > MAX_RECORD_BYTES) return new KvStoreError(`document too large: ${size} bytes (max ${MAX_RECORD_BYTES})`);
      if ((await state.get(key)) === undefined) {
        const records = (await state.list()).length;
        if (records >= maxRecords) return new KvStoreError(`store full: ${records} records (max ${maxRecords})`);
      }
      const refused = rejectedNow(state.set(key, json));
      if (!refused) return undefined;
      const reason = refused.reason as Error & { code?: string };
      if (reason.code === "STATE_TOO_LARGE") {
        return new KvStoreError(
          `state budget exhausted: the node's total state is capped at ~900KB; store smaller records or lower maxRecords: ${reason.message}`,
          { cause: reason },
        );
      }
      return new KvStoreError(`state.Set: ${reason.message}`, { cause: reason });
    });
    if (refusal) return fail(refusal);
    self.records = await countRecords(state);
    void output("_control");
    if (!enableStoreAckPort) return;
    return output(
      "store_ack",
      omitEmpty(
        { context: data.context, request: omitEmpty({ context: data.context, operation: data.operation, document }, OMIT_CONTEXT) as typeof data },
        OMIT_CONTEXT,
      ),
    );
  },
});
