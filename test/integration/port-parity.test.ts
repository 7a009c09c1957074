/**
 * Port parity with the real Go SDK (issue 13, "Validation" and "Schemas the editor reads").
 *
 * test/go/schemas declares, in Go, the port types of the Go components our bundled components
 * mirror and runs the SDK's own code on them: `schemas schemas` prints the schema
 * `pkg/schema.CreateSchema` makes for each port (what the Go runner's ReadStatus writes into
 * TinyNode.status.ports) and its configuration JSON; `schemas decode` decodes data into the port's
 * Go type as the runner does. Here every bundled component runs in tinyhost's real runner
 * (`testComponent`) in the same state, and:
 * - every published port's schema equals Go's as JSON (key order aside) and so does its
 *   configuration, except the deliberate differences listed in SCHEMA_DIFFERENCES;
 * - every probe is decoded by Go and by tinyhost's runner, and the component receives exactly
 *   what the Go component would (or both fail; ours naming the field and the value), except the
 *   one deliberate difference pinned by the last test (an integer Go's JSON package wraps).
 * Needs Go and the module proxy (the tool is built by scripts/build-go-tools.sh).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { discoverComponents } from "../../src/loader/discover.ts";
import type { ComponentDefinition, ComponentInstance, ErasedHooks } from "../../src/core/component.ts";
import { testComponent, type ComponentHarness } from "../../src/sdk/testing.ts";
import { empty } from "../../src/core/result.ts";
import { goTool } from "../support/go-tools.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

const registry = await discoverComponents(resolve(import.meta.dir, "../../components"));
/** The encoding-module's components (test/go/schemas/cases_encoding.go). */
const ENCODING = ["csv_decode", "csv_encode", "json_decode", "json_encode", "xml_encode", "jwt_encode", "jwt_decode", "text_chunk", "go_template"];
const BUNDLED = [
  ...["async", "delay", "transform", "array_split", "signal", "ticker", "cron", "debug", "counter", "router", "http_server", "http_request", "js_eval"],
  ...["budget_guard", "run_start", "run_status", "chat", "form", "flow_telemetry", "http_auth_parse", "promql_query", "logql_query"],
  ...["array_get", "array_filter", "group_by", "retry", "display", "inject", "kv", "collect"],
  ...ENCODING,
];

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type GoPorts = Record<string, { schema: Json; configuration: Json }>;

/** JSON text with object keys sorted at every level: equality "as JSON, key order aside". */
function canonical(v: unknown): string {
  const sort = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(sort);
    if (x !== null && typeof x === "object")
      return Object.fromEntries(
        Object.keys(x)
          .sort()
          .map((k) => [k, sort((x as Record<string, unknown>)[k])]),
      );
    return x;
  };
  return JSON.stringify(sort(v));
}

function b64json(s: string): unknown {
  return JSON.parse(Buffer.from(s, "base64").toString("utf8"));
}

function component(name: string): ComponentDefinition {
  const def = registry.get(name);
  if (!def) throw new Error(`bundled component ${name} not found`);
  return def;
}

async function poll(what: string, ok: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

let schemasTool = "";

async function runTool(args: string[], stdin?: string): Promise<string> {
  const proc = Bun.spawn([schemasTool, ...args], { stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin), stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`schemas ${args.join(" ")} exited ${code}: ${err}`);
  return out;
}

// ---- schema parity ------------------------------------------------------------------------------

/** How to bring a bundled component into each state test/go/schemas/cases.go describes. */
interface StateRecipe {
  settings?: unknown;
  /** Messages on `_control` after start, then a wait until `ready` holds for the status. */
  control?: unknown;
  ready?: (ports: Map<string, { configuration: unknown }>) => boolean;
  /** Messages on business ports after start (and after `control`), each expected not to fail. */
  sends?: { port: string; data: unknown }[];
  /** Configuration keys whose values are times of this run (compared by presence only). */
  volatile?: string[];
}

const SIGNAL_CONTEXT = { name: "x", n: 1, tags: ["a"], nested: { ok: true } };
const controlStatus = (want: string) => (ports: Map<string, { configuration: unknown }>) =>
  (ports.get("_control")?.configuration as { status?: string } | undefined)?.status === want;

/** js_eval settings of test/go/schemas/cases.go jsEvalErrorPort (a script that compiles here). */
const JS_EVAL_ERROR_PORT = {
  enableErrorPort: true,
  script: { name: "main.js", content: 'import {typeOf} from "utils.js";\nexport default function(inp) { return typeOf(inp) }' },
  modules: [{ name: "utils.js", content: "export function typeOf(input) {return typeof input}" }],
};
/** js_eval settings of cases.go jsEvalExamples: inputData/outputData examples, a module, a limit. */
const JS_EVAL_EXAMPLES = {
  enableErrorPort: false,
  inputData: { items: [{ sku: "a-1", qty: 2 }], customer: { name: "Ada", vip: true } },
  outputData: { total: 42.5, lines: ["a-1 x2"] },
  script: { name: "main.js", content: 'import {fmt} from "fmt.js";\nexport default function(inp) { return {total: 42.5, lines: inp.items.map(fmt)} }' },
  modules: [{ name: "fmt.js", content: 'export function fmt(i) { return i.sku + " x" + i.qty }' }],
  timeoutSeconds: 5,
};

/** chat settings of cases_agents_ops.go chatFormMode: an authored form, a timeout with the error port, form mode. */
const CHAT_FORM_MODE = {
  form: '{"type":"object","properties":{"replicas":{"type":"number","title":"Replicas"},"reason":{"type":"string"},"ok":{"type":"boolean","format":"button"}}}',
  timeoutSeconds: 30,
  enableErrorPort: true,
  historyLimit: 20,
  placeholder: "Ask the agent…",
  hideComposer: true,
};
/** promql_query/logql_query settings of the error-port cases (tenant, an extra header). */
const QUERY_ERROR_PORT = { orgID: "tenant-1", timeoutSeconds: 10, enableErrorPort: true, headers: [{ key: "X-Api-Key", value: "k" }] };

const STATES: Record<string, StateRecipe> = {
  "async/default": {},
  "delay/default": {},
  "transform/default": {},
  "array_split/default": {},
  "signal/default": {},
  "signal/context": { settings: { context: SIGNAL_CONTEXT } },
  "signal/list-context": { settings: { context: [{ k: "v" }] } },
  "signal/scalar-context": { settings: { context: "hello" } },
  "ticker/stopped": {},
  "ticker/running": { settings: { delay: 60000 }, control: { start: true }, ready: controlStatus("Running") },
  "cron/stopped": {},
  "cron/running": { control: { start: true }, ready: controlStatus("Running"), volatile: ["nextRun"] },
  "debug/default": {},
  "counter/default": {},
  "router/default": {},
  "router/default-port": { settings: { routes: ["GET", "POST"], enableDefaultPort: true } },
  "http_server/default": {},
  "http_server/all-ports": { settings: { enableStopPort: true, enableStatusPort: true } },
  "http_request/default": {},
  "http_request/error-port": { settings: { enableErrorPort: true, maxResponseBytes: 10485760 } },
  // js_eval: no settings (Go's defaultEngineSettings, whose CDN import tinyhost refuses: the node
  // reports the error and publishes the defaults, as Go publishes them before they compile), the
  // error port on, and a user's script with inputData/outputData examples.
  "js_eval/default": {},
  "js_eval/error-port": { settings: JS_EVAL_ERROR_PORT },
  "js_eval/examples": { settings: JS_EVAL_EXAMPLES },
  // test/go/schemas/cases_agents_ops.go
  "budget_guard/default": {},
  "budget_guard/ceilings": { settings: { maxIterations: 3, maxTokens: 1000, maxCostUSD: 0.5 } },
  "run_start/default": {},
  "run_status/default": {},
  "chat/default": {},
  "chat/form-mode": { settings: CHAT_FORM_MODE },
  "form/default": {},
  "form/fields": { settings: { context: { apiKey: "", label: "prod" } } },
  "flow_telemetry/default": {},
  "flow_telemetry/error-port": { settings: { otelService: "tinysystems-otel-collector", otelPort: 2345, enableErrorPort: true } },
  "http_auth_parse/default": {},
  "promql_query/default": {},
  "promql_query/error-port": { settings: { ...QUERY_ERROR_PORT, baseURL: "http://prometheus.monitoring:9090" } },
  "logql_query/default": {},
  "logql_query/error-port": { settings: { ...QUERY_ERROR_PORT, baseURL: "http://loki.monitoring:3100" } },
  "array_get/default": {},
  "array_get/error-port": { settings: { enableErrorPort: true } },
  "array_filter/default": {},
  "array_filter/error-port": { settings: { enableErrorPort: true, skipUnevaluable: true } },
  "group_by/default": {},
  "retry/default": {},
  "retry/settings": { settings: { maxAttempts: 3, initialDelayMs: 10, maxDelayMs: 100, backoff: "linear" } },
  "display/default": {},
  "display/authored": { settings: { text: "### Pod Watch\n\nWhat this agent does." } },
  "display/shown": { settings: { text: "placeholder" }, sends: [{ port: "in", data: { text: "3 pods unhealthy" } }] },
  "inject/default": {},
  "inject/config-required": { settings: { configRequired: true } },
  "kv/default": {},
  "kv/document": { settings: { primaryKey: "url", maxRecords: 100, enableStoreAckPort: true, document: { url: "", status: "UP" } } },
  "kv/records": {
    sends: [
      { port: "store", data: { operation: "store", document: { id: "a" } } },
      { port: "store", data: { operation: "store", document: { id: "b", status: "DOWN" } } },
    ],
  },
  "collect/default": {},
  "collect/error-port": { settings: { enableErrorPort: true, timeoutSeconds: 60 } },
  // encoding-module (cases_encoding.go): Instance() defaults, the error port, example shapes.
  "csv_decode/default": {},
  "csv_decode/error-port": { settings: { delimiter: "semicolon", maxRows: 50, inferTypes: true, enableErrorPort: true } },
  "csv_decode/rows": { settings: { delimiter: "comma", rows: [{ name: "api-1", restarts: 3 }] } },
  "csv_encode/default": {},
  "csv_encode/error-port": { settings: { delimiter: "tab", columns: ["b", "a"], enableErrorPort: true } },
  "json_decode/default": {},
  "json_decode/decoded": { settings: { enableErrorPort: true, decoded: { user: { id: 1 } } } },
  "json_encode/default": {},
  "json_encode/error-port": { settings: { enableErrorPort: true } },
  "xml_encode/default": {},
  "xml_encode/error-port": { settings: { enableErrorPort: true } },
  "jwt_encode/default": {},
  "jwt_encode/error-port": { settings: { enableErrorPort: true } },
  "jwt_decode/default": {},
  "jwt_decode/error-port": { settings: { enableErrorPort: true } },
  "text_chunk/default": {},
  "text_chunk/error-port": { settings: { chunkSize: 100, overlap: 20, splitOn: "line", maxChunks: 50, enableErrorPort: true } },
  "go_template/default": {},
  "go_template/custom": {
    settings: {
      enableErrorPort: true,
      templates: [
        { name: "greeting.txt", content: "Hello {{.name}}" },
        { name: "list.txt", content: "{{range .}}{{.}},{{end}}" },
      ],
      partials: [],
    },
  },
};

/**
 * Deliberate differences from Go's published schema (docs/compatibility.md "Schemas"). Each is a
 * Go bug on valid input; the test checks Go still shows it, then compares without it.
 */
const SCHEMA_DIFFERENCES: { cases: string[]; ports: string[]; def: string; property?: string; key: string; why: string; ours?: unknown }[] = [
  {
    cases: ["signal/context"],
    ports: ["_settings", "_control"],
    def: "Context",
    key: "additionalProperties",
    why: "Go reflects ONE member of a live map (random map order) into additionalProperties, which then forbids members of other types",
  },
  {
    cases: ["signal/list-context"],
    ports: ["_settings", "_control"],
    def: "ContextItem",
    key: "additionalProperties",
    why: "the same reflection of one random member, on the list's item def",
  },
  {
    cases: ["signal/list-context"],
    ports: ["_settings", "_control"],
    def: "Context",
    key: "path",
    why: "Go gives a def that is a list no path of its own (\"$\", the root's path); ours is the list's path",
    ours: "$.context",
  },
  {
    cases: ["form/fields"],
    ports: ["_settings", "_control"],
    def: "Context",
    key: "additionalProperties",
    why: "the same reflection of one random member of the form's fields",
  },
  {
    cases: ["chat/form-mode"],
    ports: ["answer"],
    def: "Answer",
    property: "values",
    key: "additionalProperties",
    why: "Go types the sample answer values (a map of a boolean, a string and a number) after one random member; ours publishes no value schema for members of several types",
  },
  {
    cases: ["kv/document"],
    ports: ["store_ack"],
    def: "Storecontext",
    key: "path",
    why: "the ack's context and its request's context share Go's def StoreContext; which path Go writes for it varies between runs",
    ours: "$.context",
  },
  {
    cases: ["go_template/default", "go_template/custom"],
    ports: ["_settings"],
    def: "Template",
    key: "path",
    why: "templates and partials share Go's def Template; which of their paths Go writes for it varies between runs (ours: the first, $.templates[0])",
    ours: "$.templates[0]",
  },
  {
    cases: ["js_eval/examples"],
    ports: ["request", "_settings"],
    def: "Inputdata",
    key: "additionalProperties",
    why: "the same reflection of one random member of the inputData example",
  },
  {
    cases: ["js_eval/examples"],
    ports: ["response", "_settings"],
    def: "Outputdata",
    key: "additionalProperties",
    why: "the same reflection of one random member of the outputData example",
  },
  {
    cases: ["csv_decode/default", "csv_decode/error-port", "csv_decode/rows", "csv_encode/default", "csv_encode/error-port"],
    ports: ["_settings"],
    def: "Settings",
    property: "delimiter",
    key: "enumTitles",
    why: "Go splits the tag `Comma ,|Semicolon ;|Tab|Pipe |` on commas into two garbled titles for four options; ours are the four titles",
    ours: ["Comma ,", "Semicolon ;", "Tab", "Pipe |"],
  },
  {
    cases: ["csv_decode/rows"],
    ports: ["response", "_settings"],
    def: "RowsItem",
    key: "additionalProperties",
    why: "the same reflection of one random member of the rows example's first row",
  },
  {
    cases: ["csv_decode/rows"],
    ports: ["response", "_settings"],
    def: "Rows",
    key: "path",
    why: 'Go gives a def that is a list no path of its own ("$"); ours is the list\'s path',
    ours: "$.rows",
  },
  {
    cases: ["json_decode/decoded"],
    ports: ["response", "_settings"],
    def: "Decoded",
    key: "additionalProperties",
    why: "the same reflection of one random member of the decoded example",
  },
];

/**
 * Deliberate differences from Go's published configuration (docs/compatibility.md
 * "encoding-module"): Go marshals a pointer-receiver MarshalJSON field of a struct value as the
 * struct itself, so the JWT components publish `signingMethod` as `{"Value","Options"}` where the
 * schema says string; ours is the string. The test checks Go still does it.
 */
const CONFIGURATION_DIFFERENCES: { cases: string[]; port: string; key: string; ours: unknown }[] = [
  {
    cases: ["jwt_encode/default", "jwt_encode/error-port", "jwt_decode/default", "jwt_decode/error-port"],
    port: "request",
    key: "signingMethod",
    ours: "HS256",
  },
  { cases: ["go_template/default"], port: "request", key: "template", ours: "home.html" },
  { cases: ["go_template/custom"], port: "request", key: "template", ours: "greeting.txt" },
];

/** Go's schema with the deliberate differences applied (asserting each is still there). */
function goSchemaAsOurs(caseName: string, port: string, schema: Json): Json {
  const copy = JSON.parse(JSON.stringify(schema)) as { $defs?: Record<string, Record<string, Json>> };
  for (const d of SCHEMA_DIFFERENCES) {
    if (!d.cases.includes(caseName) || !d.ports.includes(port)) continue;
    const inDef = copy.$defs?.[d.def];
    // an inline property of the def (an unnamed map field), or the def itself
    const def = (d.property ? (inDef?.properties as Record<string, Record<string, Json>> | undefined)?.[d.property] : inDef) as
      | Record<string, Json>
      | undefined;
    const where = d.property ? `${d.def}.${d.property}.${d.key}` : `${d.def}.${d.key}`;
    expect(def && d.key in def ? `${where} present` : `${where} missing`).toBe(`${where} present`);
    if (d.ours === undefined) delete def![d.key];
    else def![d.key] = d.ours as Json;
  }
  return copy as Json;
}

interface PortResult {
  caseName: string;
  port: string;
  schemaEqual: boolean;
  configurationEqual: boolean;
}
const portResults: PortResult[] = [];

let goSchemas: Record<string, GoPorts> = {};

beforeAll(async () => {
  schemasTool = await goTool("schemas");
  goSchemas = JSON.parse(await runTool(["schemas"])) as Record<string, GoPorts>;
}, 600_000);

afterAll(() => {
  if (portResults.length === 0) return;
  const equal = portResults.filter((r) => r.schemaEqual).length;
  console.log(
    `port-parity: ${equal}/${portResults.length} port schemas equal to Go's (${portResults.filter((r) => r.configurationEqual).length} configurations equal)`,
  );
});

describe("published port schemas equal the Go SDK's", () => {
  test("every bundled component has Go cases and every Go case has a recipe", () => {
    const covered = new Set(Object.keys(goSchemas).map((c) => c.split("/")[0]));
    expect([...covered].sort()).toEqual([...BUNDLED].sort());
    expect(Object.keys(goSchemas).sort()).toEqual(Object.keys(STATES).sort());
    expect(
      registry
        .list()
        .map((d) => d.info.name)
        .filter((n) => !BUNDLED.includes(n)),
    ).toEqual([]);
  });

  for (const [caseName, recipe] of Object.entries(STATES)) {
    test(`${caseName}: every port's schema and configuration`, async () => {
      const go = goSchemas[caseName];
      expect(go).toBeDefined();
      const h = await testComponent(component(caseName.split("/")[0]!), recipe.settings === undefined ? {} : { settings: recipe.settings });
      try {
        const read = () => new Map(h.status().ports!.map((p) => [p.name, { schema: b64json(p.schema), configuration: b64json(p.configuration) }]));
        if (recipe.control !== undefined) {
          const r = await h.send("_control", recipe.control);
          expect(r.kind).not.toBe("fail");
          await poll(`${caseName} to be ready`, () => recipe.ready!(read()));
        }
        for (const m of recipe.sends ?? []) expect((await h.send(m.port, m.data)).kind).not.toBe("fail");
        const ours = read();
        expect([...ours.keys()].sort()).toEqual(Object.keys(go!).sort());
        for (const [port, theirs] of Object.entries(go!)) {
          const mine = ours.get(port)!;
          const expected = goSchemaAsOurs(caseName, port, theirs.schema);
          let conf = mine.configuration as Record<string, unknown>;
          let goConf = theirs.configuration as Record<string, unknown>;
          for (const d of CONFIGURATION_DIFFERENCES) {
            if (!d.cases.includes(caseName) || d.port !== port) continue;
            expect(typeof goConf[d.key]).toBe("object"); // Go still publishes the struct
            goConf = { ...goConf, [d.key]: d.ours };
          }
          for (const k of recipe.volatile ?? []) {
            if (port !== "_control") continue;
            expect(typeof conf[k]).toBe(typeof goConf[k]);
            conf = { ...conf, [k]: "<volatile>" };
            goConf = { ...goConf, [k]: "<volatile>" };
          }
          const result = {
            caseName,
            port,
            schemaEqual: canonical(mine.schema) === canonical(expected),
            configurationEqual: canonical(conf) === canonical(goConf),
          };
          portResults.push(result);
          expect({ port, schema: JSON.parse(canonical(mine.schema)) }).toEqual({ port, schema: JSON.parse(canonical(expected)) });
          expect({ port, configuration: JSON.parse(canonical(conf)) }).toEqual({ port, configuration: JSON.parse(canonical(goConf)) });
        }
      } finally {
        await h.stop();
      }
    });
  }
});

// ---- decode parity ------------------------------------------------------------------------------

interface Probe {
  id: string;
  component: string;
  port: string;
  data: Json;
  /** Settings the node runs with first (a port that only exists with them). */
  settings?: Json;
}

/**
 * Decode probes: the kinds (settings saved before a field existed, partial control
 * messages) plus missing fields, nulls, unknown keys, type mismatches, nested objects, lists of
 * objects, numbers as strings, big integers, case-insensitive keys. `_settings` probes take the
 * configuration path on both sides (Go: evaluate + encode + decode; ours: the evaluated
 * configuration), the others the signal path (Go: decode of the payload bytes).
 */
const PROBES: Probe[] = [
  // async
  { id: "async-settings-empty", component: "async", port: "_settings", data: {} },
  { id: "async-settings-null-field", component: "async", port: "_settings", data: { maxConcurrency: null } },
  { id: "async-settings-number-as-string", component: "async", port: "_settings", data: { maxConcurrency: "5" } },
  { id: "async-in-missing-context", component: "async", port: "in", data: {} },
  { id: "async-in-unknown-key", component: "async", port: "in", data: { context: { a: 1 }, extra: 1 } },
  // ticker
  { id: "ticker-settings-no-delay", component: "ticker", port: "_settings", data: { context: { x: 1 } } },
  { id: "ticker-settings-fraction", component: "ticker", port: "_settings", data: { delay: 1.5 } },
  { id: "ticker-settings-key-case", component: "ticker", port: "_settings", data: { Delay: 250 } },
  { id: "ticker-settings-case-collision", component: "ticker", port: "_settings", data: { delay: 100, Delay: 200 } },
  { id: "ticker-control-start-only", component: "ticker", port: "_control", data: { start: true } },
  { id: "ticker-control-bool-as-string", component: "ticker", port: "_control", data: { start: "yes" } },
  // cron
  { id: "cron-settings-no-schedule", component: "cron", port: "_settings", data: { context: 1 } },
  { id: "cron-settings-schedule-number", component: "cron", port: "_settings", data: { schedule: 5 } },
  { id: "cron-control-start-only", component: "cron", port: "_control", data: { start: true } },
  // delay
  { id: "delay-in-no-delay", component: "delay", port: "in", data: { context: 1 } },
  { id: "delay-in-number-as-string", component: "delay", port: "in", data: { delay: "100" } },
  { id: "delay-in-negative", component: "delay", port: "in", data: { delay: -5 } },
  { id: "delay-in-big-int-2^53+1", component: "delay", port: "in", data: { delay: 9007199254740993 } },
  { id: "delay-in-beyond-int64", component: "delay", port: "in", data: { delay: 1e20 } },
  { id: "delay-in-key-case-collision", component: "delay", port: "in", data: { delay: 1, Delay: 2 } },
  // transform
  { id: "transform-in-empty", component: "transform", port: "in", data: {} },
  { id: "transform-in-list-context", component: "transform", port: "in", data: { context: [1, { a: null }] } },
  // array_split
  { id: "split-in-no-array", component: "array_split", port: "in", data: { context: 1 } },
  { id: "split-in-null-array", component: "array_split", port: "in", data: { array: null } },
  { id: "split-in-mixed-array", component: "array_split", port: "in", data: { array: [1, "a", null, { b: 2 }] } },
  { id: "split-in-object-for-array", component: "array_split", port: "in", data: { array: { a: 1 } } },
  { id: "split-in-string-for-array", component: "array_split", port: "in", data: { array: "abc" } },
  // signal
  { id: "signal-settings-empty", component: "signal", port: "_settings", data: {} },
  { id: "signal-control-send-only", component: "signal", port: "_control", data: { send: true } },
  { id: "signal-control-send-number", component: "signal", port: "_control", data: { send: 1 } },
  { id: "signal-control-case-and-unknown", component: "signal", port: "_control", data: { SEND: true, context: { k: "v" }, reset: true } },
  // debug
  { id: "debug-in-nested-nulls", component: "debug", port: "in", data: { a: 1, b: { c: null } } },
  { id: "debug-in-empty", component: "debug", port: "in", data: {} },
  { id: "debug-settings-empty", component: "debug", port: "_settings", data: {} },
  // router
  { id: "router-settings-no-enableDefaultPort", component: "router", port: "_settings", data: { routes: ["A", "B"] } },
  { id: "router-settings-empty", component: "router", port: "_settings", data: {} },
  { id: "router-settings-route-number", component: "router", port: "_settings", data: { routes: ["a", 1] } },
  { id: "router-settings-route-null", component: "router", port: "_settings", data: { routes: ["a", null] } },
  { id: "router-input-full", component: "router", port: "input", data: { conditions: [{ route: "A", condition: true }], context: { x: 1 } } },
  { id: "router-input-partial-conditions", component: "router", port: "input", data: { conditions: [{ route: "A" }, null, { condition: true }] } },
  { id: "router-input-route-number", component: "router", port: "input", data: { conditions: [{ route: 5, condition: true }] } },
  { id: "router-input-condition-string", component: "router", port: "input", data: { conditions: [{ route: "A", condition: "yes" }] } },
  { id: "router-input-conditions-object", component: "router", port: "input", data: { conditions: { a: 1 } } },
  { id: "router-input-no-conditions", component: "router", port: "input", data: { context: 1 } },
  // http_server
  { id: "server-settings-no-enableStopPort", component: "http_server", port: "_settings", data: { enableStatusPort: true } },
  { id: "server-settings-empty", component: "http_server", port: "_settings", data: {} },
  { id: "server-settings-bool-as-string", component: "http_server", port: "_settings", data: { enableStopPort: "true" } },
  { id: "server-start-empty", component: "http_server", port: "start", data: {} },
  {
    id: "server-start-nulls-and-context",
    component: "http_server",
    port: "start",
    data: { readTimeout: 5, hostnames: null, tlsCert: null, context: { a: 1 } },
  },
  { id: "server-start-string-for-list", component: "http_server", port: "start", data: { hostnames: "a.example" } },
  { id: "server-response-partial", component: "http_server", port: "response", data: { statusCode: 201, body: "x" } },
  { id: "server-response-status-as-string", component: "http_server", port: "response", data: { statusCode: "200" } },
  { id: "server-response-headers-objects", component: "http_server", port: "response", data: { headers: [{ key: "a" }, { Key: "b", VALUE: "c", extra: 1 }] } },
  { id: "server-response-header-number", component: "http_server", port: "response", data: { headers: [{ key: 1 }] } },
  { id: "server-stop-empty", component: "http_server", port: "stop", data: {}, settings: { enableStopPort: true } },
  { id: "server-stop-string", component: "http_server", port: "stop", data: "now", settings: { enableStopPort: true } },
  // http_request
  { id: "client-settings-empty", component: "http_request", port: "_settings", data: {} },
  { id: "client-settings-fraction", component: "http_request", port: "_settings", data: { enableErrorPort: true, maxResponseBytes: 1.5 } },
  { id: "client-request-enum-not-enforced", component: "http_request", port: "request", data: { url: "http://x", method: "FOO", contentType: "weird/type" } },
  { id: "client-request-timeout-string", component: "http_request", port: "request", data: { timeout: "10" } },
  { id: "client-request-nulls-and-key-case", component: "http_request", port: "request", data: { headers: null, bearerToken: null, UrL: "http://y" } },
  // js_eval
  { id: "jseval-settings-empty", component: "js_eval", port: "_settings", data: {} },
  { id: "jseval-settings-script-without-name", component: "js_eval", port: "_settings", data: { script: { content: "export default (x) => x" } } },
  {
    id: "jseval-settings-null-modules-and-examples",
    component: "js_eval",
    port: "_settings",
    data: { script: { name: "main.js", content: "export default (x) => x" }, modules: null, inputData: null, outputData: null },
  },
  {
    id: "jseval-settings-scalar-examples",
    component: "js_eval",
    port: "_settings",
    data: { inputData: 5, outputData: "x", script: { name: "main.js", content: "export default (x) => x" } },
  },
  {
    id: "jseval-settings-key-case",
    component: "js_eval",
    port: "_settings",
    data: { EnableErrorPort: true, Script: { Name: "main.js", CONTENT: "export default (x) => x" }, TimeoutSeconds: 3 },
  },
  {
    id: "jseval-settings-module-unknown-key",
    component: "js_eval",
    port: "_settings",
    data: { script: { name: "main.js", content: "export default (x) => x" }, modules: [{ name: "a.js", content: "export const a = 1", extra: 1 }] },
  },
  { id: "jseval-settings-timeout-string", component: "js_eval", port: "_settings", data: { timeoutSeconds: "5" } },
  { id: "jseval-settings-timeout-fraction", component: "js_eval", port: "_settings", data: { timeoutSeconds: 1.5 } },
  { id: "jseval-settings-modules-object", component: "js_eval", port: "_settings", data: { modules: { name: "a.js" } } },
  { id: "jseval-settings-script-string", component: "js_eval", port: "_settings", data: { script: "export default () => 1" } },
  { id: "jseval-request-empty", component: "js_eval", port: "request", data: {} },
  { id: "jseval-request-scalar-input", component: "js_eval", port: "request", data: { inputData: 3, context: "c" } },
  { id: "jseval-request-nested-nulls", component: "js_eval", port: "request", data: { inputData: { a: [1, { b: null }] }, context: null } },
  { id: "jseval-request-unknown-key-and-case", component: "js_eval", port: "request", data: { InputData: [1], input: 2 } },
  { id: "jseval-request-string", component: "js_eval", port: "request", data: "x" },
  // counter (tinyhost-only, declared as a Go component would be)
  { id: "counter-settings-empty", component: "counter", port: "_settings", data: {} },
  { id: "counter-in-fraction", component: "counter", port: "in", data: { by: 2.5 } },
  { id: "counter-in-key-case", component: "counter", port: "in", data: { By: 3, context: "x" } },
  { id: "counter-control-reset", component: "counter", port: "_control", data: { reset: true } },
  // budget_guard, run_start, run_status, chat, form, flow_telemetry, http_auth_parse, promql_query, logql_query
  { id: "guard-settings-empty", component: "budget_guard", port: "_settings", data: {} },
  { id: "guard-request-fraction", component: "budget_guard", port: "request", data: { iteration: 1.5 } },
  { id: "guard-request-counters", component: "budget_guard", port: "request", data: { context: [1], costUSD: 0.25, SpentTokens: 7 } },
  { id: "runstart-in-empty", component: "run_start", port: "in", data: {} },
  { id: "runstatus-request-number-id", component: "run_status", port: "request", data: { runID: 5 } },
  { id: "runstatus-request-key-case", component: "run_status", port: "request", data: { RunId: "r1", context: null } },
  { id: "chat-say-enum-not-enforced", component: "chat", port: "say", data: { role: "bogus", text: "x", extra: 1 } },
  { id: "chat-control-map", component: "chat", port: "_control", data: { _kind: "message", text: "hi", n: 1 } },
  { id: "chat-settings-history-string", component: "chat", port: "_settings", data: { historyLimit: "10" } },
  { id: "form-control-submit-only", component: "form", port: "_control", data: { submit: true } },
  { id: "form-result-prefill-list", component: "form", port: "result", data: { text: "ok", prefill: [1, "a"] } },
  { id: "telemetry-request-lookback-string", component: "flow_telemetry", port: "request", data: { project: "p", lookbackMinutes: "60" } },
  { id: "telemetry-settings-empty", component: "flow_telemetry", port: "_settings", data: {} },
  { id: "authparse-in-header-key-case", component: "http_auth_parse", port: "in", data: { headers: [{ KEY: "Authorization", Value: "Basic dTpw" }] } },
  { id: "authparse-in-headers-object", component: "http_auth_parse", port: "in", data: { headers: { key: "a" } } },
  { id: "promql-request-nulls", component: "promql_query", port: "request", data: { query: "up", rangeMinutes: 5, token: null, username: null } },
  { id: "promql-settings-timeout-string", component: "promql_query", port: "_settings", data: { baseURL: "http://x", timeoutSeconds: "30" } },
  { id: "logql-request-limit-fraction", component: "logql_query", port: "request", data: { query: '{a="b"}', limit: 10.5 } },
  {
    id: "logql-settings-headers",
    component: "logql_query",
    port: "_settings",
    data: { baseURL: "http://x", timeoutSeconds: 5, headers: [{ key: "a", value: "b" }], orgID: null },
  },
  // array_get
  { id: "arrayget-settings-empty", component: "array_get", port: "_settings", data: {} },
  { id: "arrayget-request-empty", component: "array_get", port: "request", data: {} },
  { id: "arrayget-request-full", component: "array_get", port: "request", data: { context: { k: 1 }, array: ["a", { b: null }, 3], index: 2 } },
  { id: "arrayget-request-index-string", component: "array_get", port: "request", data: { array: [1], index: "1" } },
  { id: "arrayget-request-index-fraction", component: "array_get", port: "request", data: { array: [1], index: 1.5 } },
  { id: "arrayget-request-array-object", component: "array_get", port: "request", data: { array: { a: 1 }, index: 1 } },
  { id: "arrayget-request-key-case", component: "array_get", port: "request", data: { Array: ["x"], INDEX: 1 } },
  // array_filter
  { id: "arrayfilter-settings-empty", component: "array_filter", port: "_settings", data: {} },
  { id: "arrayfilter-settings-string-bool", component: "array_filter", port: "_settings", data: { skipUnevaluable: "true" } },
  { id: "arrayfilter-request-empty", component: "array_filter", port: "request", data: {} },
  { id: "arrayfilter-request-full", component: "array_filter", port: "request", data: { context: "c", array: [{ a: 1 }, null, "x"], query: "$.a > 0" } },
  { id: "arrayfilter-request-query-number", component: "array_filter", port: "request", data: { array: [], query: 5 } },
  { id: "arrayfilter-request-array-string", component: "array_filter", port: "request", data: { array: "abc", query: "$.a" } },
  // group_by
  { id: "groupby-in-empty", component: "group_by", port: "in", data: {} },
  { id: "groupby-in-full", component: "group_by", port: "in", data: { context: [1], items: [{ a: 1 }, "x", null], groupByPath: "a" } },
  { id: "groupby-in-path-number", component: "group_by", port: "in", data: { items: [], groupByPath: 3 } },
  { id: "groupby-in-items-object", component: "group_by", port: "in", data: { items: { a: 1 }, groupByPath: "a" } },
  { id: "groupby-in-key-case", component: "group_by", port: "in", data: { ITEMS: [1], GroupByPath: "x" } },
  // retry
  { id: "retry-settings-empty", component: "retry", port: "_settings", data: {} },
  { id: "retry-settings-backoff-unknown", component: "retry", port: "_settings", data: { backoff: "fibonacci", maxAttempts: 2 } },
  { id: "retry-settings-attempts-string", component: "retry", port: "_settings", data: { maxAttempts: "5" } },
  { id: "retry-request-empty", component: "retry", port: "request", data: {} },
  { id: "retry-request-error-payload", component: "retry", port: "request", data: { context: { q: 1 }, error: "boom", retryable: true, response: {} } },
  { id: "retry-request-attempt-fraction", component: "retry", port: "request", data: { attempt: 1.5 } },
  { id: "retry-request-retryable-string", component: "retry", port: "request", data: { retryable: "true" } },
  // display
  { id: "display-settings-empty", component: "display", port: "_settings", data: {} },
  { id: "display-in-empty", component: "display", port: "in", data: {} },
  { id: "display-in-number", component: "display", port: "in", data: { text: 42 } },
  { id: "display-in-markdown-and-unknown", component: "display", port: "in", data: { TEXT: "# Title\n\n*ok*", extra: true } },
  // inject
  { id: "inject-settings-empty", component: "inject", port: "_settings", data: {} },
  { id: "inject-config-empty", component: "inject", port: "config", data: {} },
  { id: "inject-config-nested", component: "inject", port: "config", data: { data: { ns: "prod", list: [1, null, { a: "b" }] } } },
  { id: "inject-config-scalar-and-case", component: "inject", port: "config", data: { DATA: 5 } },
  { id: "inject-message-empty", component: "inject", port: "message", data: {} },
  { id: "inject-message-context", component: "inject", port: "message", data: { context: "tick-1", config: "ignored" } },
  // kv
  { id: "kv-settings-empty", component: "kv", port: "_settings", data: { document: { id: "" }, primaryKey: "id" } },
  {
    id: "kv-settings-doc-mixed",
    component: "kv",
    port: "_settings",
    data: { document: { id: "", n: 1, tags: ["a"] }, primaryKey: "id", maxRecords: 5, enableStoreAckPort: true },
  },
  { id: "kv-settings-maxrecords-string", component: "kv", port: "_settings", data: { maxRecords: "5" } },
  { id: "kv-store-empty", component: "kv", port: "store", data: {} },
  { id: "kv-store-doc-keys-kept", component: "kv", port: "store", data: { operation: "store", document: { ID: "x", Id: "y", id: "z" } } },
  { id: "kv-store-doc-array", component: "kv", port: "store", data: { document: [1] } },
  { id: "kv-store-op-other", component: "kv", port: "store", data: { operation: "upsert", document: { id: "a" } } },
  { id: "kv-query-empty", component: "kv", port: "query", data: {} },
  { id: "kv-query-number", component: "kv", port: "query", data: { query: 1 } },
  { id: "kv-control-reset", component: "kv", port: "_control", data: { reset: true, records: 3 } },
  // collect
  { id: "collect-settings-empty", component: "collect", port: "_settings", data: {} },
  { id: "collect-settings-negative", component: "collect", port: "_settings", data: { enableErrorPort: true, timeoutSeconds: -1, maxGroups: 0 } },
  { id: "collect-item-empty", component: "collect", port: "item", data: {} },
  { id: "collect-item-full", component: "collect", port: "item", data: { context: { runId: "r" }, groupKey: "g", index: 1, total: 2, item: { id: 5 } } },
  { id: "collect-item-total-string", component: "collect", port: "item", data: { groupKey: "g", total: "2" } },
  { id: "collect-item-index-fraction", component: "collect", port: "item", data: { groupKey: "g", index: 0.5, total: 2 } },
  { id: "collect-item-key-case", component: "collect", port: "item", data: { GroupKey: "g", TOTAL: 3, Item: [1] } },
  // encoding-module
  { id: "csvdecode-settings-empty", component: "csv_decode", port: "_settings", data: {} },
  { id: "csvdecode-settings-maxrows-string", component: "csv_decode", port: "_settings", data: { delimiter: "comma", maxRows: "5" } },
  { id: "csvdecode-settings-rows-example", component: "csv_decode", port: "_settings", data: { delimiter: "comma", rows: [{ a: 1 }], NoHeader: true } },
  { id: "csvdecode-request-no-encoded", component: "csv_decode", port: "request", data: { context: { f: "x" } } },
  { id: "csvdecode-request-encoded-number", component: "csv_decode", port: "request", data: { encoded: 5 } },
  { id: "csvencode-settings-columns-null", component: "csv_encode", port: "_settings", data: { delimiter: "comma", columns: null } },
  { id: "csvencode-settings-columns-number", component: "csv_encode", port: "_settings", data: { columns: ["a", 1] } },
  { id: "csvencode-request-rows-mixed", component: "csv_encode", port: "request", data: { rows: [{ a: 1 }, "x", null] } },
  { id: "csvencode-request-rows-object", component: "csv_encode", port: "request", data: { rows: { a: 1 } } },
  { id: "csvencode-request-empty", component: "csv_encode", port: "request", data: {} },
  { id: "jsondecode-settings-empty", component: "json_decode", port: "_settings", data: {} },
  { id: "jsondecode-request-encoded-object", component: "json_decode", port: "request", data: { encoded: { a: 1 } } },
  { id: "jsondecode-request-key-case", component: "json_decode", port: "request", data: { ENCODED: "[1]", Context: 2 } },
  { id: "jsonencode-request-empty", component: "json_encode", port: "request", data: {} },
  { id: "jsonencode-request-nested", component: "json_encode", port: "request", data: { document: { a: [1, { b: null }] }, context: "c" } },
  { id: "xmlencode-request-scalar", component: "xml_encode", port: "request", data: { document: 1.5 } },
  { id: "xmlencode-settings-bool-string", component: "xml_encode", port: "_settings", data: { enableErrorPort: "true" } },
  {
    id: "jwtencode-request-full",
    component: "jwt_encode",
    port: "request",
    data: { signingMethod: "HS512", claims: { sub: "x", exp: 1.5, custom: [1] }, key: "k", context: 1 },
  },
  { id: "jwtencode-request-empty", component: "jwt_encode", port: "request", data: {} },
  { id: "jwtencode-request-claims-array", component: "jwt_encode", port: "request", data: { claims: [1] } },
  { id: "jwtencode-request-method-number", component: "jwt_encode", port: "request", data: { signingMethod: 256 } },
  { id: "jwtdecode-request-full", component: "jwt_decode", port: "request", data: { signingMethod: "RS256", token: "a.b.c", key: "k" } },
  { id: "jwtdecode-request-token-number", component: "jwt_decode", port: "request", data: { token: 1 } },
  { id: "textchunk-settings-empty", component: "text_chunk", port: "_settings", data: {} },
  { id: "textchunk-settings-negative-overlap", component: "text_chunk", port: "_settings", data: { chunkSize: 10, overlap: -1, splitOn: "weird" } },
  { id: "textchunk-request-text-null", component: "text_chunk", port: "request", data: { text: null, context: [1] } },
  { id: "gotemplate-request-template-number", component: "go_template", port: "request", data: { template: 1 } },
  { id: "gotemplate-request-full", component: "go_template", port: "request", data: { template: "home.html", renderData: { a: [1] }, context: "c" } },
  {
    id: "gotemplate-settings-templates-null",
    component: "go_template",
    port: "_settings",
    data: { enableErrorPort: true, templates: null, partials: [{ name: "p", Content: "x" }] },
  },
];

/**
 * The one deliberate decode difference (docs/compatibility.md "Runner"): Go's JSON package
 * (goccy/go-json) wraps an integer just past int64 into a wrong value; ours refuses it.
 */
const WRAPPING_PROBE: Probe = { id: "delay-in-2^63", component: "delay", port: "in", data: { delay: 2 ** 63 } };

type GoDecoded = { id: string; value?: Json; null?: boolean; error?: string };

async function goDecode(probes: Probe[]): Promise<Map<string, GoDecoded>> {
  const lines = probes
    .map((p) => JSON.stringify({ id: p.id, component: p.component, port: p.port, data: p.data, path: p.port === "_settings" ? "edge" : "signal" }))
    .join("\n");
  const out = await runTool(["decode"], `${lines}\n`);
  const results = new Map<string, GoDecoded>();
  for (const line of out.trim().split("\n")) {
    const r = JSON.parse(line) as GoDecoded;
    results.set(r.id, r.null ? { ...r, value: null } : r);
  }
  return results;
}

/**
 * The bundled component with its handlers replaced by recorders of the data they receive; the
 * real `onSettings` still runs after recording, so ports that depend on settings exist.
 */
function recording(def: ComponentDefinition, received: { port: string; data: unknown }[]): ComponentDefinition {
  const wrapped: ComponentDefinition = {
    ...def,
    instance(): ComponentInstance {
      const inner = def.instance();
      const hooks: Partial<ErasedHooks> = {
        ...inner.hooks,
        onSettings: (ctx, data) => {
          received.push({ port: "_settings", data });
          return inner.hooks.onSettings?.(ctx, data);
        },
        onControl: (_ctx, data) => void received.push({ port: "_control", data }),
      };
      return {
        definition: wrapped,
        get self() {
          return inner.self;
        },
        ports: () => inner.ports(),
        handle: (_ctx, _out, port, data) => {
          received.push({ port, data });
          return empty;
        },
        hooks,
      };
    },
  };
  return wrapped;
}

/** What tinyhost's runner hands the component for `probe`, or the hop's (or reconcile's) error. */
async function ourDecode(probe: Probe): Promise<{ value?: unknown; error?: string }> {
  const received: { port: string; data: unknown }[] = [];
  const def = recording(component(probe.component), received);
  let h: ComponentHarness | undefined;
  try {
    if (probe.port === "_settings") {
      h = await testComponent(def, { settings: probe.data });
      const got = received.find((r) => r.port === "_settings");
      if (got) return { value: got.data };
      const status = h.status();
      return { error: status.error ? status.status : "onSettings was not called" };
    }
    h = await testComponent(def, probe.settings === undefined ? {} : { settings: probe.settings });
    received.length = 0;
    const r = await h.send(probe.port, probe.data);
    if (r.kind === "fail") return { error: r.error.message };
    const got = received.find((x) => x.port === probe.port);
    return got ? { value: got.data } : { error: `${probe.port} received nothing` };
  } finally {
    await h?.stop();
  }
}

describe("port data decodes as the Go SDK decodes it", () => {
  let go = new Map<string, GoDecoded>();
  const tally = { run: 0, equal: 0, bothFail: 0 };

  beforeAll(async () => {
    go = await goDecode([...PROBES, WRAPPING_PROBE]);
  });

  afterAll(() => console.log(`port-parity: ${tally.run} decode probes, ${tally.equal} equal values, ${tally.bothFail} refused by both`));

  test("there are at least 40 probes over every bundled component", () => {
    expect(PROBES.length).toBeGreaterThanOrEqual(40);
    expect(new Set(PROBES.map((p) => p.component)).size).toBe(BUNDLED.length);
    expect(new Set(PROBES.map((p) => p.id)).size).toBe(PROBES.length);
  });

  for (const probe of PROBES) {
    test(`${probe.id}: ${probe.component} ${probe.port} ${JSON.stringify(probe.data)}`, async () => {
      const theirs = go.get(probe.id);
      expect(theirs).toBeDefined();
      const ours = await ourDecode(probe);
      tally.run++;
      if (theirs!.error !== undefined) {
        // Go refuses it: so must we, with an error naming the field and the value.
        expect({ ours: ours.error === undefined ? "accepted" : "refused", go: theirs!.error }).toEqual({ ours: "refused", go: theirs!.error });
        expect(ours.error).toMatch(/\$[.\[\w']*\S* must be .+, got /);
        tally.bothFail++;
        return;
      }
      expect({ error: ours.error }).toEqual({ error: undefined });
      expect(JSON.parse(canonical(ours.value))).toEqual(JSON.parse(canonical(theirs!.value)));
      tally.equal++;
    });
  }

  test("deliberate: an integral literal written 1.0 or 1e3 is an integer here; Go's direct decode of the bytes refuses it", async () => {
    const raw = [
      '{"id":"lit-1.0","component":"delay","port":"in","data":{"delay":1.0},"path":"signal"}',
      '{"id":"lit-1e3","component":"delay","port":"in","data":{"delay":1e3},"path":"signal"}',
    ];
    const theirs = (await runTool(["decode"], `${raw.join("\n")}\n`))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as GoDecoded);
    expect(theirs.map((r) => r.error !== undefined)).toEqual([true, true]);
    // The same bytes reach a tinyhost component through JSON.parse, which reads them as 1 and 1000.
    for (const [text, n] of [
      ['{"delay":1.0}', 1],
      ['{"delay":1e3}', 1000],
    ] as const) {
      const ours = await ourDecode({ id: text, component: "delay", port: "in", data: JSON.parse(text) as Json });
      expect(ours.value).toEqual({ context: null, delay: n });
    }
  });

  test("deliberate: an integer just past int64 is refused; Go's JSON package (goccy) silently wraps it", async () => {
    const theirs = go.get(WRAPPING_PROBE.id)!;
    expect(theirs.error).toBeUndefined();
    expect((theirs.value as { delay: number }).delay).toBeLessThan(0); // 2^63 arrives negative in Go
    const ours = await ourDecode(WRAPPING_PROBE);
    expect(ours.error).toContain("$.delay must be an integer within the 64-bit range, got number 9223372036854776000");
  });
});
