/**
 * tinyhost — the component SDK. The one import for component authors, and the only one the
 * bundled components make (they are examples an author can copy):
 *
 *   import { defineComponent, target, source, ok, fail, empty, Type } from "tinyhost";
 *
 * Besides the component contract it offers what the bundled components are built from: field
 * schemas with the platform's keywords, waiting and background loops, a serial queue, `_control`
 * reading, a wall clock and cron schedules, an HTTP listener and an HTTP client, and the script
 * sandbox. Guide: docs/authoring.md. Contract: runtime-spec §1.
 */
export { Type } from "typebox";
export type { Static, TSchema } from "typebox";
export { ok, fail, empty, isResult, toResult, resultValue, toError } from "../core/result.ts";
export type { Result, OkResult, FailResult, EmptyResult, HandleReturn } from "../core/result.ts";
export {
  TinyError,
  RetryableError,
  PermanentError,
  CodedError,
  retryable,
  permanent,
  coded,
  isRetryable,
  isPermanent,
  errorCode,
  shouldRetry,
  isTimeout,
  errorPayload,
} from "../core/errors.ts";
export type { ErrorPayload } from "../core/errors.ts";
export { target, source, isSystemPort, SystemPort, ERROR_PORT, POSITION_WIRE } from "../core/ports.ts";
export type { PortSpec, AnyPort, Position, PortOptions } from "../core/ports.ts";
export { noopTrace } from "../core/context.ts";
export type { ComponentContext, ComponentLogger, HopTrace, OutputFn, Emitter } from "../core/context.ts";
export { LABEL_FLOW_NAME, LABEL_PROJECT_NAME } from "../core/node.ts";
export type * from "../core/node.ts"; // TinyNode and its parts, NodeIdentity, NodeUpdater
export type { State } from "../core/state.ts";
export { defineComponent, isComponentDefinition, InvalidComponentError, COMPONENT_BRAND, HOOK_ORDER } from "../core/component.ts";
export type {
  ComponentDefinition,
  ComponentInstance,
  ComponentInfo,
  ComponentSpec,
  ErasedHooks,
  HandleArgs,
  Output,
  SettingsOf,
  ControlOf,
  HookReturn,
} from "../core/component.ts";
export { beginRun, beginRunWithReply, runId, readRun, DEFAULT_RUN_REPLY_TIMEOUT_MS } from "./durable.ts";
export type { RunStart, RunReplyOptions, RunView, StepView, StepRecord, EmitRecord, StepStatus } from "./durable.ts";
export { AGENT_TOOL_TAG, SYNC_RPC_TAG } from "../core/agent-tool.ts";
// Usage metering: `tiny.usage.<unit>` on the hop's span (Go module.Meter).
export { meter, USAGE_ATTR_PREFIX } from "../core/usage.ts";
export type { Requirements, RequiredRule } from "../core/requirements.ts";
export type { AgentToolSpec, AgentToolInfo } from "../core/agent-tool.ts";
export { testComponent } from "./testing.ts";
export type { ComponentHarness, Emitted, HopUsage, TestComponentOptions } from "./testing.ts";
export { isModuleClient } from "../core/client.ts";
export type { ModuleClient, ExposePortRequest } from "../core/client.ts";

// Schemas: the platform keywords and the fields the Go modules share (components.md §0.5).
export { mark, configurable, shared, unnamed } from "../runtime/schema/keywords.ts";
export type { PlatformOptions } from "../runtime/schema/keywords.ts";
// The published form of a port schema (Go CreateSchema rules), for a port whose Go type adjusts its
// schema after reflection (a `PrepareJSONSchema`): build it here, adjust it, publish it as `rawSchema`.
export { toPlatformSchema } from "../runtime/schema/platform.ts";
export type { PlatformSchema } from "../runtime/schema/platform.ts";
export type { JsonSchemaObject } from "../runtime/schema/json.ts";
export {
  contextField,
  stringEnum,
  contentTypeField,
  HeaderSchema,
  ErrorMessageSchema,
  HTTP_METHODS,
  CONTENT_TYPES,
  JWT_SIGNING_METHODS,
  jwtSigningMethodField,
  jwtClaimsSchema,
  withGoClaimsDef,
} from "./fields.ts";
export type { ContextFieldOptions, Header } from "./fields.ts";
export { redact } from "../runtime/runner/status.ts";
export { errorMessagePort, errorMessagePortSetting, emitErrorOrFail } from "./error-message-port.ts";
// The encoding-module's codec shape (json_encode, xml_encode, jwt_decode, jwt_encode): request → response, optional error port.
export { defineCodecComponent, defineDocumentEncoder, CodecErrorSchema, ERROR_PORT_DESCRIPTION } from "./codec-component.ts";
export type { CodecPort, CodecSpec } from "./codec-component.ts";

// Waiting, background work, ordering, control messages.
export { sleepUnlessAborted, WaitCancelledError } from "../core/abortable-sleep.ts";
export { startTimer, startInterval, timeoutSignal, hostTimers } from "../core/timer.ts";
export type { Timer, TimerHost, TimerOptions } from "../core/timer.ts";
export { BackgroundLoop } from "./background-loop.ts";
export type { LoopOptions } from "./background-loop.ts";
export { nodeTimeout, nodeInterval, nodeTask, reportNodeFault } from "./node-timers.ts";
export type { NodeScoped } from "./node-timers.ts";
export { ComponentFaultError } from "../runtime/runner/guard.ts";
export type { FaultSite } from "../runtime/runner/guard.ts";
export { SerialQueue } from "./serial-queue.ts";
export { LazyAbort } from "../core/lazy-abort.ts";
export type { Cancellation } from "../core/lazy-abort.ts";
export { readControl } from "./control-message.ts";
export { rejectedNow } from "../core/settled.ts";
export type { ControlMessage } from "./control-message.ts";

// Time: a wall clock to wait on (replaceable in tests), cron schedules, RFC 3339 text.
export { systemClock, MAX_TIMER_MS } from "./wall-clock.ts";
export type { WallClock } from "./wall-clock.ts";
export { parseCron, CronSchedule, CronParseError } from "./cron-schedule.ts";
export type { CronZone } from "./cron-schedule.ts";
export { formatRfc3339, formatRfc3339Nano } from "../golang/time.ts";

// Queries in the expression dialect (kv, array_filter).
export { compileQuery } from "./query.ts";
export type { Query } from "./query.ts";

// HTTP: a listener that hands each request to a flow, and a client (the http-module's shapes).
export { HttpListener, ListenError, idleTimeoutFor } from "./http/listener.ts";
export type { ListenerOptions } from "./http/listener.ts";
export type { ServerRequest } from "./http/server-request.ts";
export { checkResponse, FlowTimeoutError } from "./http/server-response.ts";
export type { ServerResponse, ResponseCheck } from "./http/server-response.ts";
export { performRequest, emptyResponse, BadRequestError, ResponseTooLargeError, HttpStatusError, TransportError } from "./http/fetch.ts";
export type { OutboundRequest, InboundResponse, ExchangeOutcome } from "./http/fetch.ts";
export {
  callQueryApi,
  checkQueryApiSettings,
  queryApiSettingsSchema,
  defaultQueryApiSettings,
  queryApiSettingsDefault,
  queryApiCredentialFields,
  queryApiRequestProblem,
} from "./http/query-api.ts";
export { TraceStatsClient, TraceStatsError } from "./otel/trace-stats.ts";
export type { TraceSummary, TracesPage, TraceSpan } from "./otel/trace-stats.ts";
export type { QueryApiSettings, QueryApiSettingsText, QueryApiCall } from "./http/query-api.ts";

// Scripts: a user's JavaScript in a sandbox of its own, with a time limit and a memory cap (docs/security.md).
export { startScript } from "../runtime/script/start.ts";
export { MAIN_MODULE } from "../runtime/script/compile.ts";
export type { ScriptSource, ScriptModule, ScriptLanguage } from "../runtime/script/compile.ts";
export type { ScriptSandbox, SandboxOptions, CallOptions } from "../runtime/script/sandbox.ts";
export { ScriptError } from "../runtime/script/errors.ts";
export type { ScriptErrorCode } from "../runtime/script/errors.ts";
export { timeoutMsOf, loadTimeoutMsOf, DEFAULT_TIMEOUT_MS, DEFAULT_LOAD_TIMEOUT_MS } from "../runtime/script/limits.ts";

// Go's libraries as the ported Go components use them (src/golang/, one home for each; checked
// against Go in test/conformance/encoding): encoding/csv, encoding/json and goccy/go-json (with
// omitempty), fmt (%v, %T), encoding/xml, golang-jwt, text/template, time, strings and unicode.
export { GoCsvReader, CsvParseError, writeGoCsv, CSV_ERRORS } from "../golang/csv.ts";
export type { CsvReadOptions } from "../golang/csv.ts";
export { isGoSpace, trimGoSpace, utf8Bytes, utf8String, utf8Length, isRuneStart, wellFormed, compareGoStrings } from "../golang/unicode.ts";
export { parseGoJson, marshalGoJson, formatGoJsonNumber, goObject, GoJsonError, GoJsonEncodeError, MAX_JSON_DEPTH } from "../golang/json.ts";
export type { JsonFlavor } from "../golang/json.ts";
export { omitEmpty } from "../golang/omitempty.ts";
export type { OmitEmptyFields } from "../golang/omitempty.ts";
export { goSprint, goSprintf, goSprintln, goQuote, goTypeName, formatFloat, formatHexFloat, isGoStringer } from "../golang/fmt.ts";
export type { GoStringer } from "../golang/fmt.ts";
export { encodeGoXml, escapeXmlText, GoXmlError } from "../golang/xml.ts";
export { signGoJwt, verifyGoJwt, GoJwtError, encodeSegment, decodeSegment } from "../golang/jwt.ts";
export { GoTemplateSet, TemplateExecError, TemplateParseError, BUILTINS as TEMPLATE_BUILTINS, htmlEscape, jsEscape } from "../golang/template/index.ts";
export type { GoFunc, ExecLimits } from "../golang/template/index.ts";
export { GoTime, GoNamedInt, RFC3339, RFC3339_NANO } from "../golang/time.ts";
