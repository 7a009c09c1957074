/**
 * Generates the example flows' manifests (examples/<flow>/*.yaml) from readable descriptions, so no
 * one hand-edits base64. The YAML is what the platform would write (components.md §5, §6): node
 * names `<md5(project+flow)[:8]>.<module>.<component>-<5 hex>`, edges on source nodes, base64 edge
 * mappings on target nodes keyed by `from`, `_settings`, flow/project labels, a TinyProject and a
 * TinyFlow. Local mode starts a flow with the `tinyhost.io/start-signal` annotation (the local
 * `send_signal`; a cluster ignores it).
 *
 *   bun examples/generate.ts          # rewrite the YAML of every example directory
 *   bun examples/generate.ts --check  # exit 1 when the committed YAML is out of date
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderFlowFiles, type FlowDescription, type GeneratedFile } from "../src/cli/scaffold/flow-builder.ts";

/** Module every example node belongs to (`spec.module`; 2nd segment of the node names). */
export const EXAMPLES_MODULE = "tinyhost";
/** TinyProject holding the example flows. */
export const EXAMPLES_PROJECT = "tinyhost-examples";

/** Options shared by the example builders (tests shorten timings or point probes at local servers). */
export interface ExampleOptions {
  /** Module name (default {@link EXAMPLES_MODULE}). */
  module?: string;
}

/**
 * Flow A "hello-api" (components.md §5): signal → http_server.start; http_server.request → router;
 * GET → transform building `{"hello":"world","method":…,"path":…}` → 200 JSON; POST → 201 echoing
 * the body; any other method → the router's default port → 404. The listen port comes from local
 * mode (`--port`/`PORT`, default 8080), written to the server's `port` metadata.
 */
export function helloApi(o: ExampleOptions = {}): FlowDescription {
  return {
    project: EXAMPLES_PROJECT,
    projectTitle: "tinyhost examples",
    flow: "hello-api",
    description: "HTTP request → router → response: GET answers JSON built by the flow, POST echoes the body, anything else is a 404.",
    module: o.module ?? EXAMPLES_MODULE,
    nodes: {
      start: { component: "signal", label: "Start server", settings: { context: { env: "dev" } }, startSignal: { send: true }, position: [40, 160] },
      server: {
        component: "http_server",
        label: "HTTP server",
        settings: { enableStatusPort: false, enableStopPort: false, maxBodySize: 1 },
        position: [300, 160],
      },
      router: { component: "router", label: "Route by method", settings: { routes: ["GET", "POST"], enableDefaultPort: true }, position: [600, 160] },
      hello: { component: "transform", label: "Build hello JSON", position: [880, 80] },
    },
    edges: [
      { from: "start:out", to: "server:start", configuration: { context: "{{$}}", autoHostName: true, readTimeout: 60, writeTimeout: 10 } },
      {
        from: "server:request",
        to: "router:input",
        configuration: {
          context: "{{$}}",
          conditions: [
            { route: "GET", condition: "{{$.method == 'GET'}}" },
            { route: "POST", condition: "{{$.method == 'POST'}}" },
          ],
        },
      },
      { from: "router:out_get", to: "hello:in", configuration: { context: { hello: "world", method: "{{$.context.method}}", path: "{{$.context.path}}" } } },
      { from: "hello:out", to: "server:response", configuration: { statusCode: 200, contentType: "application/json", body: "{{string($.context)}}" } },
      { from: "router:out_post", to: "server:response", configuration: { statusCode: 201, contentType: "application/json", body: "{{$.context.body}}" } },
      {
        from: "router:default",
        to: "server:response",
        configuration: { statusCode: 404, contentType: "text/plain", body: "no route for {{$.context.method}} {{$.context.path}}" },
      },
    ],
  };
}

/** Options of {@link tickCount}. */
export interface TickCountOptions extends ExampleOptions {
  /** Pause between ticks, ms (default 1000). */
  delayMs?: number;
}

/** Flow B "tick-count" (components.md §5): ticker → counter → debug; the count lives in node state. */
export function tickCount(o: TickCountOptions = {}): FlowDescription {
  return {
    project: EXAMPLES_PROJECT,
    projectTitle: "tinyhost examples",
    flow: "tick-count",
    description: 'A ticker drives a counter whose count lives in node state (status.metadata["_state/count"]); a debug node shows each tick.',
    module: o.module ?? EXAMPLES_MODULE,
    nodes: {
      ticker: {
        component: "ticker",
        label: "Every second",
        settings: { context: { source: "ticker" }, delay: o.delayMs ?? 1000 },
        startSignal: { start: true },
        position: [40, 160],
      },
      counter: { component: "counter", label: "Count ticks", settings: { step: 1, initial: 0 }, position: [320, 160] },
      debug: { component: "debug", label: "Last tick", position: [600, 160] },
    },
    edges: [
      { from: "ticker:out", to: "counter:in", configuration: { context: "{{$}}" } },
      { from: "counter:out", to: "debug:in", configuration: { count: "{{$.count}}", source: "{{$.context.source}}", line: "tick #{{$.count}}" } },
    ],
  };
}

/** Options of {@link uptimeProbe}. */
export interface UptimeProbeOptions extends ExampleOptions {
  /** URLs probed on every tick (default example.com and example.org). */
  targets?: string[];
  /** Pause between probe rounds, ms (default 60000). */
  delayMs?: number;
  /** Pause before each probe, ms (default 250). */
  stepDelayMs?: number;
}

/**
 * Flow C "uptime-probe" (components.md §5): ticker → array_split → delay → http_request, whose
 * error port (on by setting) catches failures so a down target never fails the tick.
 */
export function uptimeProbe(o: UptimeProbeOptions = {}): FlowDescription {
  const targets = o.targets ?? ["https://example.com", "https://example.org"];
  return {
    project: EXAMPLES_PROJECT,
    projectTitle: "tinyhost examples",
    flow: "uptime-probe",
    description: 'Every minute, probe each target URL one by one; answers go to "Up", failures (through the HTTP client\'s error port) to "Down".',
    module: o.module ?? EXAMPLES_MODULE,
    nodes: {
      ticker: {
        component: "ticker",
        label: "Every minute",
        settings: { context: { targets }, delay: o.delayMs ?? 60_000 },
        startSignal: { start: true },
        position: [40, 160],
      },
      split: { component: "array_split", label: "Each target", position: [300, 160] },
      pause: { component: "delay", label: "Space probes", position: [540, 160] },
      probe: { component: "http_request", label: "Probe", settings: { enableErrorPort: true, maxResponseBytes: 1_048_576 }, position: [780, 160] },
      up: { component: "debug", label: "Up", position: [1040, 80] },
      down: { component: "debug", label: "Down", position: [1040, 260] },
    },
    edges: [
      { from: "ticker:out", to: "split:in", configuration: { context: "{{$}}", array: "{{$.targets}}" } },
      { from: "split:out", to: "pause:in", configuration: { context: "{{$}}", delay: o.stepDelayMs ?? 250 } },
      {
        from: "pause:out",
        to: "probe:request",
        configuration: {
          context: "{{$.context.item}}",
          method: "GET",
          url: "{{$.context.item}}",
          timeout: 5,
          contentType: "text/plain",
          headers: [],
          body: "",
        },
      },
      {
        from: "probe:response",
        to: "up:in",
        configuration: { url: "{{$.context}}", status: "{{$.response.statusCode}}", daysLeft: "{{$.response.tls.daysUntilExpiry}}" },
      },
      { from: "probe:error", to: "down:in", configuration: { url: "{{$.context}}", error: "{{$.error}}", retryable: "{{$.retryable}}" } },
    ],
  };
}

/**
 * "runs-api": a durable-run front door behind Basic auth. `POST /runs` (user `ops`, password
 * `demo`) starts a run (run_start) whose steps (a delay, then a debug sink) go on after the answer
 * `{"runID": …}`; `GET /runs/<id>` answers what run_status reads from the step ledger. Anything
 * else gets 401. Without JetStream (local mode) the run's hops are blocking, so the POST answers
 * once the run's steps are done; on JetStream at once.
 */
export function runsApi(o: ExampleOptions = {}): FlowDescription {
  const authorized = "$.found && $.user == 'ops' && $.password == 'demo'";
  return {
    project: EXAMPLES_PROJECT,
    projectTitle: "tinyhost examples",
    flow: "runs-api",
    description: "POST /runs starts a durable run and answers its id; GET /runs/<id> answers the run's status; Basic auth (ops/demo) in front.",
    module: o.module ?? EXAMPLES_MODULE,
    nodes: {
      start: { component: "signal", label: "Start server", startSignal: { send: true }, position: [40, 200] },
      server: {
        component: "http_server",
        label: "HTTP server",
        settings: { enableStatusPort: false, enableStopPort: false, maxBodySize: 1 },
        position: [280, 200],
      },
      auth: { component: "http_auth_parse", label: "Basic auth", position: [520, 200] },
      router: { component: "router", label: "Route", settings: { routes: ["START", "STATUS"], enableDefaultPort: true }, position: [760, 200] },
      runs: { component: "run_start", label: "Start run", position: [1000, 80] },
      work: { component: "delay", label: "Work", position: [1240, 40] },
      done: { component: "debug", label: "Run finished", position: [1480, 40] },
      status: { component: "run_status", label: "Run status", position: [1000, 300] },
    },
    edges: [
      { from: "start:out", to: "server:start", configuration: { autoHostName: true, readTimeout: 60, writeTimeout: 30 } },
      { from: "server:request", to: "auth:in", configuration: { context: "{{$}}", headers: "{{$.headers}}" } },
      {
        from: "auth:out",
        to: "router:input",
        configuration: {
          context: "{{$.context}}",
          conditions: [
            { route: "START", condition: `{{${authorized} && $.context.method == 'POST' && $.context.path == '/runs'}}` },
            { route: "STATUS", condition: `{{${authorized} && $.context.method == 'GET' && $.context.pathSegments[0] == 'runs'}}` },
          ],
        },
      },
      { from: "router:out_start", to: "runs:in", configuration: { context: { order: "{{$.context.body}}" } } },
      { from: "runs:out", to: "work:in", configuration: { context: "{{$.context}}", delay: 1000 } },
      { from: "work:out", to: "done:in", configuration: { order: "{{$.context.order}}" } },
      { from: "runs:started", to: "server:response", configuration: { statusCode: 202, contentType: "application/json", body: '{"runID":"{{$.runID}}"}' } },
      { from: "router:out_status", to: "status:request", configuration: { runID: "{{$.context.pathSegments[1]}}" } },
      { from: "status:response", to: "server:response", configuration: { statusCode: 200, contentType: "application/json", body: "{{string($)}}" } },
      {
        from: "router:default",
        to: "server:response",
        configuration: { statusCode: 401, contentType: "text/plain", body: "POST /runs or GET /runs/<id>, with Basic credentials ops:demo" },
      },
    ],
  };
}

/**
 * "agent-loop": a bounded loop on the dashboard. The form's Submit (sent once at start) enters a
 * budget_guard; each pass it allows waits (the "model call") and comes back with its token usage,
 * and says so in the chat widget; when a ceiling is reached the chat gets a system note and the
 * form shows the outcome under its button.
 */
export function agentLoop(o: ExampleOptions = {}): FlowDescription {
  return {
    project: EXAMPLES_PROJECT,
    projectTitle: "tinyhost examples",
    flow: "agent-loop",
    description:
      "A form starts a loop that budget_guard cuts off after 5 passes or 600 tokens; progress goes to a chat widget and the outcome back to the form.",
    module: o.module ?? EXAMPLES_MODULE,
    nodes: {
      ask: {
        component: "form",
        label: "Task",
        settings: { context: { task: "summarise last night's errors" } },
        startSignal: { submit: true },
        position: [40, 160],
      },
      guard: { component: "budget_guard", label: "Budget", settings: { maxIterations: 5, maxTokens: 600 }, position: [300, 160] },
      model: { component: "delay", label: "Model call", position: [560, 80] },
      chat: {
        component: "chat",
        label: "Progress",
        settings: { enableErrorPort: false, historyLimit: 50, placeholder: "Ask the agent…" },
        position: [820, 240],
      },
    },
    edges: [
      { from: "ask:out", to: "guard:request", configuration: { context: "{{$}}" } },
      { from: "guard:proceed", to: "model:in", configuration: { context: "{{$}}", delay: 300 } },
      {
        from: "model:out",
        to: "guard:request",
        configuration: {
          context: "{{$.context.context}}",
          iteration: "{{$.context.iteration}}",
          spentTokens: "{{$.context.spentTokens}}",
          spentUSD: "{{$.context.spentUSD}}",
          inputTokens: 100,
          outputTokens: 50,
          costUSD: 0.002,
        },
      },
      {
        from: "guard:proceed",
        to: "chat:say",
        configuration: { text: "pass {{$.iteration}}: {{$.spentTokens}} tokens so far, {{$.remainingIterations}} passes left" },
      },
      { from: "guard:exceeded", to: "chat:say", configuration: { role: "system", text: "stopped: {{$.reason}}" } },
      { from: "guard:exceeded", to: "ask:result", configuration: { text: "stopped at pass {{$.iteration}}: {{$.reason}}" } },
    ],
  };
}

/** The pods of {@link podReport}'s signal: name, app, restart count. */
export const REPORT_PODS = [
  { name: "api-7f9c", app: "api", restarts: 4 },
  { name: "api-2b1d", app: "api", restarts: 0 },
  { name: "web-5c3a", app: "web", restarts: 1 },
  { name: "worker-9e0f", app: "worker", restarts: 12 },
  { name: "web-1d44", app: "web", restarts: 0 },
];

/**
 * "pod-report" — the array components of common-module in one pass, no cluster needed: a signal
 * carries a pod list; array_filter keeps the pods that restarted; group_by counts them per app and
 * array_get picks the first one (debug nodes show both); array_split sends each on its own through
 * a transform that writes its report line, and collect reassembles the lines in order for a
 * display panel (its markdown is on the `_control` port the dashboard reads).
 */
export function podReport(o: ExampleOptions = {}): FlowDescription {
  return {
    project: EXAMPLES_PROJECT,
    projectTitle: "tinyhost examples",
    flow: "pod-report",
    description: "Filter a pod list, group it by app, split it into report lines and collect them back into a dashboard panel.",
    module: o.module ?? EXAMPLES_MODULE,
    nodes: {
      start: {
        component: "signal",
        label: "Pods",
        settings: { context: { runId: "report-1", pods: REPORT_PODS } },
        startSignal: { send: true },
        position: [40, 200],
      },
      restarted: { component: "array_filter", label: "Restarted pods", position: [300, 200] },
      byApp: { component: "group_by", label: "By app", position: [580, 40] },
      apps: { component: "debug", label: "Restarts by app", position: [840, 40] },
      first: { component: "array_get", label: "First to check", position: [580, 160] },
      check: { component: "debug", label: "Check first", position: [840, 160] },
      each: { component: "array_split", label: "Each pod", position: [580, 300] },
      line: { component: "transform", label: "Report line", position: [820, 300] },
      gather: { component: "collect", label: "Collect lines", settings: { enableErrorPort: false, timeoutSeconds: 60, maxGroups: 10 }, position: [1060, 300] },
      panel: { component: "display", label: "Report", settings: { text: "No report yet." }, position: [1300, 300] },
    },
    edges: [
      { from: "start:out", to: "restarted:request", configuration: { context: { runId: "{{$.runId}}" }, array: "{{$.pods}}", query: "$.restarts > 0" } },
      { from: "restarted:result", to: "byApp:in", configuration: { context: "{{$.context}}", items: "{{$.items}}", groupByPath: "app" } },
      { from: "byApp:out", to: "apps:in", configuration: { apps: "{{$.groups}}", restarted: "{{$.total}}" } },
      { from: "restarted:result", to: "first:request", configuration: { context: "{{$.context}}", array: "{{$.items}}", index: 1 } },
      { from: "first:result", to: "check:in", configuration: { pod: "{{$.item.name}}", restarts: "{{$.item.restarts}}" } },
      { from: "restarted:result", to: "each:in", configuration: { context: "{{$.context}}", array: "{{$.items}}" } },
      {
        from: "each:out",
        to: "line:in",
        configuration: {
          context: {
            runId: "{{$.context.runId}}",
            index: "{{$.index}}",
            total: "{{$.total}}",
            line: "**{{$.item.name}}** ({{$.item.app}}): {{$.item.restarts}} restarts",
          },
        },
      },
      {
        from: "line:out",
        to: "gather:item",
        configuration: {
          context: { runId: "{{$.context.runId}}" },
          groupKey: "{{$.context.runId}}",
          index: "{{$.context.index}}",
          total: "{{$.context.total}}",
          item: "{{$.context.line}}",
        },
      },
      { from: "gather:response", to: "panel:in", configuration: { text: "Restarted pods ({{$.context.runId}}): {{join($.items, ', ')}}" } },
    ],
  };
}

/** A request on `method` `path`, as a router condition. */
const on = (method: string, path: string) => `{{$.method == '${method}' && $.path == '${path}'}}`;

/** The request to the status board's own flaky hook for attempt `attempt` (an expression or a number). */
function hookRequest(context: Record<string, unknown>, attempt: string | number) {
  return { context, method: "POST", url: `http://{{$.context.host}}/hook?attempt=${attempt}`, timeout: 5, contentType: "text/plain", headers: [], body: "" };
}

/**
 * "status-board" — common-module's stateful components behind an HTTP API (start it, then curl):
 * - `POST /status?id=api&state=DOWN` stores `{id, state}` in kv (node state, kept across restarts),
 *   then notifies a webhook — the board's own `/hook`, which answers 503 until the third attempt —
 *   through http_request whose error port feeds retry, which loops back with backoff: the answer is
 *   201 once the hook took it (202 when the retries ran out);
 * - `POST /owner?name=ana` sends the board's owner to inject once;
 * - `GET /status` (all) and `GET /down` (a kv JSONPath query) answer the records grouped by state
 *   with group_by, with the owner inject attaches: `{"context":{"owner":"ana"},"groups":[…],"total":n}`.
 */
export function statusBoard(o: ExampleOptions = {}): FlowDescription {
  return {
    project: EXAMPLES_PROJECT,
    projectTitle: "tinyhost examples",
    flow: "status-board",
    description: "An HTTP status board: kv stores service states, group_by groups them, inject attaches the owner, retry re-sends a webhook with backoff.",
    module: o.module ?? EXAMPLES_MODULE,
    nodes: {
      start: { component: "signal", label: "Start server", settings: { context: { board: "status" } }, startSignal: { send: true }, position: [40, 240] },
      server: {
        component: "http_server",
        label: "HTTP server",
        settings: { enableStatusPort: false, enableStopPort: false, maxBodySize: 1 },
        position: [280, 240],
      },
      route: {
        component: "router",
        label: "Route",
        settings: { routes: ["OWNER", "STORE", "LIST", "DOWN", "HOOK"], enableDefaultPort: true },
        position: [540, 240],
      },
      owner: { component: "transform", label: "Set owner", position: [800, 40] },
      board: { component: "inject", label: "Owner", settings: { configRequired: false }, position: [1300, 160] },
      store: {
        component: "kv",
        label: "Statuses",
        settings: { document: { id: "", state: "" }, primaryKey: "id", maxRecords: 50, enableStoreAckPort: true },
        position: [800, 240],
      },
      group: { component: "group_by", label: "Group by state", position: [1540, 160] },
      notify: { component: "http_request", label: "Notify hook", settings: { enableErrorPort: true, maxResponseBytes: 65536 }, position: [1060, 360] },
      again: {
        component: "retry",
        label: "Retry hook",
        settings: { maxAttempts: 4, initialDelayMs: 50, maxDelayMs: 500, backoff: "exponential", jitter: false },
        position: [1300, 460],
      },
      hook: { component: "router", label: "Flaky hook", settings: { routes: ["OK"], enableDefaultPort: true }, position: [800, 560] },
    },
    edges: [
      { from: "start:out", to: "server:start", configuration: { context: "{{$}}", autoHostName: true, readTimeout: 60, writeTimeout: 10 } },
      {
        from: "server:request",
        to: "route:input",
        configuration: {
          context: "{{$}}",
          conditions: [
            { route: "OWNER", condition: on("POST", "/owner") },
            { route: "STORE", condition: on("POST", "/status") },
            { route: "LIST", condition: on("GET", "/status") },
            { route: "DOWN", condition: on("GET", "/down") },
            { route: "HOOK", condition: on("POST", "/hook") },
          ],
        },
      },
      {
        from: "route:default",
        to: "server:response",
        configuration: { statusCode: 404, contentType: "text/plain", body: "no route for {{$.context.method}} {{$.context.path}}" },
      },
      // POST /owner: the owner goes to inject, and the request is answered.
      { from: "route:out_owner", to: "owner:in", configuration: { context: { owner: "{{$.context.requestParams.name[0]}}" } } },
      { from: "owner:out", to: "board:config", configuration: { data: { owner: "{{$.context.owner}}" } } },
      { from: "owner:out", to: "server:response", configuration: { statusCode: 200, contentType: "text/plain", body: "owner is {{$.context.owner}}" } },
      // POST /status: store, then notify the hook (with retries), then answer.
      {
        from: "route:out_store",
        to: "store:store",
        configuration: {
          context: "{{$.context}}",
          operation: "store",
          document: { id: "{{$.context.requestParams.id[0]}}", state: "{{$.context.requestParams.state[0]}}" },
        },
      },
      {
        from: "store:store_ack",
        to: "notify:request",
        configuration: hookRequest({ id: "{{$.request.document.id}}", host: "{{$.context.host}}", attempt: 0 }, 0),
      },
      {
        from: "notify:response",
        to: "server:response",
        configuration: { statusCode: 201, contentType: "text/plain", body: "stored {{$.context.id}}; the hook took it on attempt {{$.context.attempt}}" },
      },
      {
        from: "notify:error",
        to: "again:request",
        configuration: { context: "{{$.context}}", attempt: "{{$.context.attempt}}", retryable: "{{$.retryable}}", error: "{{$.error}}" },
      },
      {
        from: "again:retry",
        to: "notify:request",
        configuration: hookRequest({ id: "{{$.context.id}}", host: "{{$.context.host}}", attempt: "{{$.attempt}}" }, "{{$.attempt}}"),
      },
      {
        from: "again:failed",
        to: "server:response",
        configuration: {
          statusCode: 202,
          contentType: "text/plain",
          body: "stored {{$.context.id}}; the hook failed after {{$.attempt}} attempts: {{$.error}}",
        },
      },
      // The hook: busy (503, retryable) until attempt 2.
      {
        from: "route:out_hook",
        to: "hook:input",
        configuration: { context: "{{$.context}}", conditions: [{ route: "OK", condition: "{{$.context.requestParams.attempt[0] == '2'}}" }] },
      },
      { from: "hook:out_ok", to: "server:response", configuration: { statusCode: 200, contentType: "text/plain", body: "ok" } },
      {
        from: "hook:default",
        to: "server:response",
        configuration: { statusCode: 503, contentType: "text/plain", body: "hook busy on attempt {{$.context.requestParams.attempt[0]}}" },
      },
      // GET /status and GET /down: query, attach the owner, group by state, answer JSON.
      { from: "route:out_list", to: "store:query", configuration: { context: "{{$.context}}", query: "" } },
      { from: "route:out_down", to: "store:query", configuration: { context: "{{$.context}}", query: "$.state == 'DOWN'" } },
      { from: "store:query_result", to: "board:message", configuration: { context: "{{$}}" } },
      {
        from: "board:output",
        to: "group:in",
        configuration: { context: { owner: "{{$.config.owner}}" }, items: "{{$.context.results}}", groupByPath: "document.state" },
      },
      { from: "group:out", to: "server:response", configuration: { statusCode: 200, contentType: "application/json", body: "{{string($)}}" } },
    ],
  };
}

/** The CSV a "csv-report" run starts with (a quoted comma, numbers and booleans to infer). */
export const CSV_REPORT_INPUT = 'name,restarts,ready\napi-1,0,true\n"web, edge",7,false\nworker-3,12,true\n';

/**
 * "csv-report" (the encoding-module's components): a signal carries a CSV export;
 * csv_decode turns it into rows (numbers and booleans inferred), csv_encode writes the columns a
 * report wants as a semicolon file, json_encode the rows as JSON, and jwt_encode signs a summary
 * of the run; debug nodes show the report and the token.
 */
export function csvReport(o: ExampleOptions = {}): FlowDescription {
  return {
    project: EXAMPLES_PROJECT,
    projectTitle: "tinyhost examples",
    flow: "csv-report",
    description: "A CSV export → rows → a semicolon report of chosen columns, the rows as JSON, and a signed token summarising the run.",
    module: o.module ?? EXAMPLES_MODULE,
    nodes: {
      start: {
        component: "signal",
        label: "CSV export",
        settings: { context: { file: "pods.csv", csv: CSV_REPORT_INPUT } },
        startSignal: { send: true },
        position: [40, 160],
      },
      decode: {
        component: "csv_decode",
        label: "Parse CSV",
        settings: { delimiter: "comma", inferTypes: true, maxRows: 1000, rows: [{ name: "api-1", restarts: 0, ready: true }] },
        position: [300, 160],
      },
      report: { component: "csv_encode", label: "Restarts report", settings: { delimiter: "semicolon", columns: ["name", "restarts"] }, position: [580, 60] },
      json: { component: "json_encode", label: "Rows as JSON", settings: { enableErrorPort: false }, position: [580, 200] },
      sign: { component: "jwt_encode", label: "Sign summary", settings: { enableErrorPort: true }, position: [580, 340] },
      show: { component: "debug", label: "Report", position: [860, 60] },
      showJson: { component: "debug", label: "JSON", position: [860, 200] },
      token: { component: "debug", label: "Token", position: [860, 340] },
      signError: { component: "debug", label: "Signing failed", position: [860, 460] },
    },
    edges: [
      { from: "start:out", to: "decode:request", configuration: { context: "{{$.file}}", encoded: "{{$.csv}}" } },
      { from: "decode:response", to: "report:request", configuration: { context: "{{$.context}}", rows: "{{$.rows}}" } },
      { from: "decode:response", to: "json:request", configuration: { context: "{{$.context}}", document: "{{$.rows}}" } },
      {
        from: "decode:response",
        to: "sign:request",
        configuration: {
          context: "{{$.context}}",
          signingMethod: "HS256",
          claims: { sub: "{{$.context}}", rows: "{{$.count}}", truncated: "{{$.truncated}}" },
          key: "dev-only-secret",
        },
      },
      { from: "report:response", to: "show:in", configuration: { file: "{{$.context}}", columns: "{{$.columns}}", csv: "{{$.encoded}}" } },
      { from: "json:response", to: "showJson:in", configuration: { file: "{{$.context}}", json: "{{$.encoded}}" } },
      { from: "sign:response", to: "token:in", configuration: { file: "{{$.context}}", token: "{{$.token}}" } },
      { from: "sign:error", to: "signError:in", configuration: { file: "{{$.context}}", error: "{{$.error}}" } },
    ],
  };
}

/** The committed examples: directory name → description. */
export function examples(): Record<string, FlowDescription> {
  return {
    "hello-api": helloApi(),
    "tick-count": tickCount(),
    "uptime-probe": uptimeProbe(),
    "runs-api": runsApi(),
    "agent-loop": agentLoop(),
    "pod-report": podReport(),
    "status-board": statusBoard(),
    "csv-report": csvReport(),
  };
}

/** Header comment of every generated file. */
export const HEADER = ["Generated by examples/generate.ts — edit the description there and run `bun examples/generate.ts`."];

/** The files of one example. */
export function exampleFiles(desc: FlowDescription): GeneratedFile[] {
  return renderFlowFiles(desc, HEADER);
}

/**
 * Writes `desc` into `dir`: removes the `*.yaml` files there first (all generated), keeps others
 * (the state file, notes).
 */
export function writeExample(dir: string, desc: FlowDescription): void {
  mkdirSync(dir, { recursive: true });
  for (const f of readdirSync(dir)) if (f.endsWith(".yaml")) rmSync(join(dir, f));
  for (const f of exampleFiles(desc)) writeFileSync(join(dir, f.name), f.text);
}

/** Names of example files that differ from what the generator writes (missing, changed or extra). */
export function staleFiles(root: string): string[] {
  const stale: string[] = [];
  for (const [name, desc] of Object.entries(examples())) {
    const dir = join(root, name);
    const want = new Map(exampleFiles(desc).map((f) => [f.name, f.text]));
    const have = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".yaml")) : [];
    for (const f of have) if (!want.has(f)) stale.push(`${name}/${f}`);
    for (const [f, text] of want) if (!existsSync(join(dir, f)) || readFileSync(join(dir, f), "utf8") !== text) stale.push(`${name}/${f}`);
  }
  return stale.sort();
}

if (import.meta.main) {
  const root = import.meta.dir;
  if (process.argv.includes("--check")) {
    const stale = staleFiles(root);
    if (stale.length > 0) {
      console.error(`examples out of date (run bun examples/generate.ts): ${stale.join(", ")}`);
      process.exit(1);
    }
    console.log("examples up to date");
  } else {
    for (const [name, desc] of Object.entries(examples())) {
      writeExample(join(root, name), desc);
      console.log(`wrote examples/${name}/ (${exampleFiles(desc).length} files)`);
    }
  }
}
