/**
 * `http_server` — "HTTP Server": the SyncRPC front door (components.md §2.1, Go http-module
 * `components/server`, monorepo variant).
 *
 * Nothing listens until a message arrives on `start`. The pod handling it binds the persisted
 * `port` (metadata) or, the first time, a random port (the leader binds at once; another pod first
 * waits up to 5 s for a reconcile to bring the leader's port), exposes it through
 * `ModuleClient.exposePort` (re-asserted every 15 s), and persists `http-start` (the Start config)
 * and `port` in `status.metadata`. The `start` call then blocks while the server runs. Every
 * reconcile re-hosts the listener on the persisted port on every replica (not leader-gated), so
 * the Service load-balances across pods; it stops a running server whose `http-start` was cleared.
 * Each HTTP request emits a `request` message and waits for the chain to reach this node's
 * `response` port; that Response is the HTTP answer (see src/sdk/http/listener.ts for
 * timeouts and error statuses). `stop` (enableStopPort) clears `http-start` then stops; onDestroy
 * stops and, on the leader, discloses the port.
 */
import {
  contentTypeField,
  contextField,
  defineComponent,
  empty,
  fail,
  HeaderSchema,
  HTTP_METHODS,
  HttpListener,
  ok,
  source,
  stringEnum,
  target,
  Type,
  type ComponentLogger,
  type Emitter,
  type ModuleClient,
  type NodeUpdater,
  type Result,
  type Static,
} from "tinyhost";

/** Metadata key holding the JSON of the last Start config (the start intent). */
export const METADATA_START = "http-start";
/** Metadata key holding the bound TCP port as a decimal string. */
export const METADATA_PORT = "port";
/** Go `defaultMaxBodySize`: 10 MiB, used when `maxBodySize` is 0. */
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
/** How often a running server re-asserts its exposed port, ms (Go `reassertInterval`). */
export const REASSERT_INTERVAL_MS = 15_000;
/** How long `start` waits for a reconcile to provide the persisted port, ms (Go: 5 s). */
export const PORT_WAIT_MS = 5_000;

// ---- schemas ------------------------------------------------------------------------------------

// Go `server` port types (http-module, monorepo variant); `$id`s are the Go type names. Every
// input decodes as Go's: missing or null fields are zero values, unknown keys are dropped.
const Settings = Type.Object(
  {
    enableStatusPort: Type.Boolean({ title: "Enable status port", description: "Status port notifies when server is up or down" }),
    enableStopPort: Type.Boolean({ title: "Enable stop port", description: "Stop port stops the running server when it receives any message" }),
    maxBodySize: Type.Optional(
      Type.Integer({ title: "Max Body Size (MB)", description: "Maximum request body size in megabytes. 0 means use default (10MB)." }),
    ),
  },
  { $id: "Settings" },
);

const Strings = (options: Record<string, unknown> = {}) => Type.Union([Type.Array(Type.String()), Type.Null()], options);

const Start = Type.Object(
  {
    context: Type.Optional(contextField("Start context", { $id: "StartContext" })),
    autoHostName: Type.Optional(Type.Boolean({ title: "Automatically generate hostname", description: "Use cluster auto subdomain setup if any." })),
    hostnames: Type.Optional(Strings({ title: "Hostnames", description: "List of virtual host this server should be bound to." })),
    readTimeout: Type.Integer({
      title: "Read Timeout",
      description:
        "Read timeout is the maximum duration for reading the entire request in seconds, including the body. A zero or negative value means there will be no timeout.",
    }),
    writeTimeout: Type.Integer({
      title: "Write Timeout",
      description:
        "Write timeout is the maximum duration before timing out writes of the response in seconds. It is reset whenever a new request's header is read.",
    }),
    tlsCert: Type.Optional(
      Type.String({
        title: "TLS Certificate",
        description: "PEM or base64-encoded PEM certificate for HTTPS. Leave empty for plain HTTP.",
        format: "textarea",
      }),
    ),
    tlsKey: Type.Optional(
      Type.String({
        title: "TLS Private Key",
        description: "PEM or base64-encoded PEM private key for HTTPS. Leave empty for plain HTTP.",
        format: "textarea",
      }),
    ),
  },
  { $id: "Start" },
);

const RequestOut = Type.Object(
  {
    context: Type.Optional(Type.Unknown({ $id: "StartContext" })),
    path: Type.String({ title: "Path", description: "Request path with no query string, e.g. /hooks/github. Branch on this, not on requestURI." }),
    pathSegments: Type.Optional(
      Strings({
        title: "Path Segments",
        description: "Path split on '/', empty parts dropped: /hooks/github gives [hooks, github]. Read one with $.pathSegments[0].",
      }),
    ),
    requestURI: Type.String({
      title: "Request URI",
      description: "Full target including the query string. Use path to route; use this only when you need the raw line.",
    }),
    requestParams: Type.Union([Type.Record(Type.String(), Type.Union([Type.Array(Type.String()), Type.Null()])), Type.Null()], { $id: "Values" }),
    host: Type.String(),
    method: stringEnum(HTTP_METHODS, { title: "Method", enumTitles: [...HTTP_METHODS] }),
    realIP: Type.Optional(Type.String()),
    headers: Type.Optional(Type.Union([Type.Array(HeaderSchema), Type.Null()])),
    body: Type.Optional(Type.String()),
    scheme: Type.Optional(Type.String()),
    podName: Type.Optional(Type.String({ title: "Pod Name", description: "Name of the pod handling this request" })),
  },
  { $id: "Request" },
);

/** The Response the `request` port expects back and `response` decodes (Go `Response`). */
const Response = Type.Object(
  {
    statusCode: Type.Integer({ title: "Status Code", description: "HTTP status code for response", minimum: 100, default: 200, maximum: 599 }),
    contentType: contentTypeField(),
    headers: Type.Optional(Type.Union([Type.Array(HeaderSchema), Type.Null()], { title: "Response headers" })),
    body: Type.Optional(Type.String({ title: "Response body", format: "textarea" })),
  },
  { $id: "Response" },
);

const Control = Type.Object(
  {
    status: Type.Optional(Type.String({ title: "Status", readonly: true })),
    listenAddr: Type.Optional(Strings({ title: "Listen Address", readonly: true })),
  },
  { $id: "Control" },
);
/** Go `Stop`: any object (or null) stops the server; the context is ignored. */
const Stop = Type.Object(
  { context: Type.Optional(contextField("Ignored — any message on this port stops the server", { $id: "StartContext" })) },
  { $id: "Stop" },
);
const Status = Type.Object(
  {
    context: Type.Optional(Type.Unknown({ $id: "StartContext", title: "Context" })),
    listenAddr: Type.Optional(Strings({ title: "Listen Address" })),
    isRunning: Type.Optional(Type.Boolean({ title: "Is running" })),
  },
  { $id: "Status" },
);

/** Go's zero `Request` as it marshals (nil slice and map → null); only ever published, never validated. */
const REQUEST_ZERO = {
  context: null,
  path: "",
  pathSegments: null,
  requestURI: "",
  requestParams: null,
  host: "",
  method: "",
  realIP: "",
  body: "",
  scheme: "",
  podName: "",
} as unknown as Static<typeof RequestOut>;

// ---- state --------------------------------------------------------------------------------------

/** A Start config with Go's zero values filled in. */
interface StartConfig {
  context?: unknown;
  autoHostName: boolean;
  hostnames: string[];
  readTimeout: number;
  writeTimeout: number;
  tlsCert: string;
  tlsKey: string;
}

interface Running {
  listener: HttpListener;
  /** Aborted to stop the server; reason `"graceful"` lets in-flight requests finish. */
  stop: AbortController;
  done: Promise<void>;
}

interface ServerSelf {
  settings: { enableStatusPort: boolean; enableStopPort: boolean; maxBodySize?: number };
  start: StartConfig;
  nodeName: string;
  client: ModuleClient | undefined;
  emit: Emitter | undefined;
  /** Live leader flag of the runtime (from the reconcile context, never from business messages). */
  isLeader: () => boolean;
  log: ComponentLogger | undefined;
  reconciled: boolean;
  /** Persisted (or bound) port; 0 = none yet. */
  listenPort: number;
  lastExposedPort: number;
  running: Running | undefined;
  publicAddr: string[];
  /** Why the last exposePort failed (e.g. EXPOSE_CONFLICT), shown on the `_control` status; undefined = exposed. */
  exposeError: string | undefined;
}

function defaultStart(): StartConfig {
  return { autoHostName: true, hostnames: [], readTimeout: 60, writeTimeout: 10, tlsCert: "", tlsKey: "" };
}

/** Go `json.Marshal(Start)`: field order and `omitempty` as the Go struct tags. */
function startJSON(s: StartConfig): Static<typeof Start> {
  const out: Record<string, unknown> = {};
  if (s.context !== undefined && s.context !== null) out.context = s.context;
  out.autoHostName = s.autoHostName;
  if (s.hostnames.length > 0) out.hostnames = s.hostnames;
  out.readTimeout = s.readTimeout;
  out.writeTimeout = s.writeTimeout;
  if (s.tlsCert !== "") out.tlsCert = s.tlsCert;
  if (s.tlsKey !== "") out.tlsKey = s.tlsKey;
  return out as Static<typeof Start>;
}

type StartInput = {
  context?: unknown;
  autoHostName?: boolean | null;
  hostnames?: string[] | null;
  readTimeout?: number | null;
  writeTimeout?: number | null;
  tlsCert?: string | null;
  tlsKey?: string | null;
};

function toStart(v: StartInput): StartConfig {
  const s: StartConfig = {
    autoHostName: v.autoHostName ?? false,
    hostnames: v.hostnames ?? [],
    readTimeout: v.readTimeout ?? 0,
    writeTimeout: v.writeTimeout ?? 0,
    tlsCert: v.tlsCert ?? "",
    tlsKey: v.tlsKey ?? "",
  };
  if (v.context !== undefined && v.context !== null) s.context = v.context;
  return s;
}

/** Go `readPortFromMetadata`: a positive decimal port, else 0. */
function portFrom(metadata: Record<string, string>): number {
  const p = Number.parseInt(metadata[METADATA_PORT] ?? "", 10);
  return Number.isInteger(p) && p > 0 && p <= 65535 ? p : 0;
}

/** Go `readStartFromMetadata`: valid JSON with a non-zero read or write timeout, else undefined. */
function startFrom(metadata: Record<string, string>): StartConfig | undefined {
  const raw = metadata[METADATA_START];
  if (!raw) return undefined;
  try {
    const v = JSON.parse(raw) as StartInput;
    if (typeof v !== "object" || v === null) return undefined;
    const s = toStart(v);
    return s.readTimeout === 0 && s.writeTimeout === 0 ? undefined : s;
  } catch {
    return undefined;
  }
}

/** Go `decodePEM`: PEM as is, else base64-decoded when that works. */
function decodePEM(s: string): string {
  if (s.trim().startsWith("-----BEGIN")) return s;
  const t = s.trim();
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(t)) return s;
  return Buffer.from(t, "base64").toString("utf8");
}

function maxBodyBytes(self: ServerSelf): number {
  const mb = self.settings.maxBodySize ?? 0;
  return mb > 0 ? mb * 1024 * 1024 : DEFAULT_MAX_BODY_BYTES;
}

function control(self: ServerSelf): { status: string; listenAddr: string[] | null } {
  if (!self.running) return { status: "Not running", listenAddr: null };
  return { status: self.exposeError ? `Running (not exposed: ${self.exposeError})` : "Running", listenAddr: self.publicAddr };
}

function patch(self: ServerSelf, updater?: NodeUpdater): void {
  void self.emit?.("_reconcile", updater);
}

function setMetadata(key: string, value: string | undefined): NodeUpdater {
  return (node) => {
    const status = (node.status ??= {});
    const md = (status.metadata ??= {});
    if (value === undefined) delete md[key];
    else md[key] = value;
  };
}

/**
 * Go `exposePort`: the leader first discloses a previously exposed, different port; then
 * `exposePort({autoHostName, hostnames, port})` where the auto hostname (last dot segment of the
 * node name) is asked for when `autoHostName` is on or no hostnames were given. An error, an empty
 * answer or no client → `["http://localhost:<port>"]`.
 */
async function expose(self: ServerSelf, port: number): Promise<string[]> {
  const local = [`http://localhost:${port}`];
  const client = self.client;
  if (!client) return local;
  const old = self.lastExposedPort;
  if (self.isLeader() && old > 0 && old !== port) {
    try {
      await client.disclosePort(old);
    } catch (err) {
      self.log?.warn({ port: old, err: (err as Error).message }, "http_server: failed to disclose old port");
    }
  }
  const auto = self.start.autoHostName || self.start.hostnames.length === 0 ? (self.nodeName.split(".").pop() ?? "") : "";
  try {
    const addrs = await client.exposePort({ ...(auto !== "" ? { autoHostName: auto } : {}), hostnames: [...self.start.hostnames], port });
    self.lastExposedPort = port;
    self.exposeError = undefined;
    return addrs.length === 0 ? local : addrs;
  } catch (err) {
    self.log?.warn({ port, err: (err as Error).message }, "http_server: failed to expose port");
    self.exposeError = (err as Error).message;
    return local;
  }
}

/**
 * Binds and runs the server until `until` aborts or {@link stopServer} is called; resolves when it
 * has stopped. Binding is synchronous, so `self.running` is set before any other hop can look.
 * @throws ListenError (synchronously, as a rejected promise) when the port cannot be bound.
 */
function serve(self: ServerSelf, until: AbortSignal, nodeSignal: AbortSignal): Promise<void> {
  const tls = self.start.tlsCert !== "" && self.start.tlsKey !== "" ? { cert: decodePEM(self.start.tlsCert), key: decodePEM(self.start.tlsKey) } : undefined;
  let listener: HttpListener;
  try {
    listener = new HttpListener({
      port: self.listenPort,
      readTimeout: self.start.readTimeout,
      writeTimeout: self.start.writeTimeout,
      ...(tls ? { tls } : {}),
      maxBodyBytes: () => maxBodyBytes(self),
      context: () => self.start.context ?? null,
      onRequest: (request, cancel) => (self.emit ? self.emit("request", request, cancel) : Promise.resolve(empty)),
      owner: nodeSignal, // the host drains it on shutdown before the node stops: in-flight requests finish
    });
  } catch (err) {
    return Promise.reject(err);
  }
  const stop = new AbortController();
  const running: Running = { listener, stop, done: Promise.resolve() };
  self.running = running;
  self.listenPort = listener.port;
  running.done = (async () => {
    const onUntil = () => stop.abort(nodeSignal.aborted ? "abort" : "graceful");
    until.addEventListener("abort", onUntil, { once: true });
    if (until.aborted) onUntil();
    const addrs = await expose(self, listener.port);
    if (!stop.signal.aborted) {
      self.publicAddr = addrs;
      patch(self, setMetadata(METADATA_PORT, String(listener.port)));
    }
    const reassert = setInterval(() => {
      const before = self.exposeError;
      void expose(self, listener.port).then((a) => {
        if (self.running !== running) return;
        self.publicAddr = a;
        if (self.exposeError !== before) patch(self); // the dashboard shows the new expose outcome
      });
    }, REASSERT_INTERVAL_MS);
    // Until stopped — or until the host's shutdown drain closed the listener (the `start` hop then
    // ends, so the drain of in-flight hops does not wait for it).
    if (!stop.signal.aborted) await Promise.race([aborted(stop.signal), listener.whenClosed]);
    clearInterval(reassert);
    until.removeEventListener("abort", onUntil);
    await listener.close(stop.signal.reason === "graceful");
    if (self.running === running) self.running = undefined;
    self.publicAddr = [];
    patch(self); // status shows "Not running"
  })();
  return running.done;
}

/** Stops the running server (graceful: in-flight requests may finish) and waits until it stopped. */
async function stopServer(self: ServerSelf, graceful: boolean): Promise<void> {
  const r = self.running;
  if (!r) return;
  r.stop.abort(graceful ? "graceful" : "abort");
  await r.done;
}

/** Go `handleStart` (see module comment). */
async function handleStart(self: ServerSelf, data: StartInput, signal: AbortSignal, nodeSignal: AbortSignal, isLeader: boolean): Promise<void> {
  self.start = toStart(data);
  patch(self, setMetadata(METADATA_START, JSON.stringify(startJSON(self.start))));
  if (self.running) {
    await Promise.race([self.running.done, aborted(signal)]); // duplicate start: never tears down
    return;
  }
  // Wait for the first reconcile, and (not leader) for the leader's persisted port.
  const deadline = Date.now() + PORT_WAIT_MS;
  while ((!self.reconciled || (self.listenPort === 0 && !isLeader)) && !self.running && Date.now() < deadline && !signal.aborted) await Bun.sleep(50);
  if (signal.aborted) return;
  const started = self.running as Running | undefined; // a reconcile may have re-hosted meanwhile
  if (started) {
    await Promise.race([started.done, aborted(signal)]);
    return;
  }
  await serve(self, signal, nodeSignal);
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((r) => (signal.aborted ? r() : signal.addEventListener("abort", () => r(), { once: true })));
}

export default defineComponent({
  info: {
    name: "http_server",
    description: "HTTP Server",
    info:
      "HTTP request handler. The server does NOT run until a message arrives on the Start port — wire a signal (or cron) into Start to launch it (a cron would re-launch on every tick, so prefer signal for a long-running server). " +
      "On start it exposes a public URL; read that URL from the _control port's ListenAddr (or enable the status port) — never guess the address. Each incoming HTTP request emits on Request port. " +
      "Wire Request to processing logic, then wire result to Response port with statusCode (required), contentType (required), headers, body. " +
      "To stop the server, enable the Stop port in settings and send it any message (context cancellation alone will NOT stop it — the runtime is distributed and durable).",
    tags: ["HTTP", "Server"],
  },
  // A module scaled to zero runs nothing until a hop arrives (docs/operations.md "Scaling").
  requirements: {
    scaling: {
      keepRunning:
        "it holds a listening server on an exposed port; at zero replicas requests find no server, and HTTP traffic is not JetStream lag that could wake it",
    },
  },
  // It holds a live HTTP connection until the flow answers on `response`: the platform keeps the
  // subgraph around it on classic request/reply (Go module.SyncRPC; listed with the tag sync_rpc).
  syncRpc: true,
  state: (): ServerSelf => ({
    settings: { enableStatusPort: false, enableStopPort: false, maxBodySize: 0 },
    start: defaultStart(),
    nodeName: "",
    client: undefined,
    emit: undefined,
    isLeader: () => false,
    log: undefined,
    reconciled: false,
    listenPort: 0,
    lastExposedPort: 0,
    running: undefined,
    publicAddr: [],
    exposeError: undefined,
  }),
  ports: (self) => [
    target("_settings", Settings, { label: "Settings", default: self.settings }),
    source("request", RequestOut, {
      label: "Request",
      position: "right",
      response: Response,
      default: REQUEST_ZERO,
    }),
    target("response", Response, { label: "Response", position: "right", default: { statusCode: 200, contentType: "", body: "" } }),
    source("_control", Control, { label: "Dashboard", position: "top", default: control(self) }),
    target("start", Start, { label: "Start", position: "left", default: startJSON(self.start) }),
    ...(self.settings.enableStopPort ? [target("stop", Stop, { label: "Stop", position: "left", default: {} })] : []),
    ...(self.settings.enableStatusPort
      ? [
          source("status", Status, {
            label: "Status",
            position: "bottom",
            default: { context: null, listenAddr: self.publicAddr, isRunning: self.running !== undefined },
          }),
        ]
      : []),
  ],
  onClient(ctx, client) {
    ctx.self.client = client;
  },
  onEmitter(ctx, emit) {
    ctx.self.emit = emit;
    ctx.self.log = ctx.log;
  },
  onSettings(ctx, settings) {
    ctx.self.settings = { ...settings };
  },
  onReconcile(ctx, node) {
    const self = ctx.self;
    self.isLeader = () => ctx.isLeader; // live flag from the runtime, not a snapshot (components.md §2.1 caveat)
    self.nodeName = node.metadata.name;
    self.log ??= ctx.log;
    self.reconciled = true;
    const metadata = node.status?.metadata ?? {};
    const port = portFrom(metadata);
    if (port === 0) return;
    self.listenPort = port;
    self.lastExposedPort = port;
    const start = startFrom(metadata);
    if (self.running) {
      if (!start) void stopServer(self, true); // start intent cleared elsewhere
      return;
    }
    if (!start) return;
    self.start = start;
    const nodeSignal = ctx.nodeSignal;
    serve(self, nodeSignal, nodeSignal).catch((err: Error) => ctx.log.error({ err: err.message, port }, "http_server: restore from metadata failed"));
  },
  async onDestroy(ctx, metadata) {
    const self = ctx.self;
    await stopServer(self, false);
    if (!self.client || !ctx.isLeader) return;
    const port = portFrom(metadata);
    if (port === 0) return;
    try {
      await self.client.disclosePort(port);
    } catch (err) {
      ctx.log.error({ port, err: (err as Error).message }, "http_server: failed to disclose port on destroy");
    }
  },
  handle(ctx, _output, port, data) {
    // Not async: `response` is every HTTP request's last hop, answered without a promise of its own.
    if (port === "response") return ok(data); // the Response travels back up the chain to the request emit
    return handleControl(ctx, port, data);
  },
});

/** The `stop` and `start` ports (and an unknown port's failure). */
async function handleControl(
  ctx: { self: ServerSelf; log: ComponentLogger; signal: AbortSignal; nodeSignal: AbortSignal; isLeader: boolean },
  port: string,
  data: unknown,
): Promise<Result> {
  const self = ctx.self;
  self.log ??= ctx.log;
  if (port === "stop") {
    patch(self, setMetadata(METADATA_START, undefined)); // first, so a reconcile will not re-host
    await stopServer(self, true);
    return empty;
  }
  if (port === "start") {
    try {
      await handleStart(self, data as StartInput, ctx.signal, ctx.nodeSignal, ctx.isLeader);
    } catch (err) {
      return fail(err);
    }
    return empty;
  }
  return fail(new Error(`port ${port} is not supported`));
}
