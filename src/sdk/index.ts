/**
 * tinyhost — the component SDK. The one import for component authors:
 *
 *   import { defineComponent, target, source, ok, fail, empty, Type } from "tinyhost";
 *
 * Guide: docs/authoring.md. Contract: runtime-spec §1.
 */
export { Type } from "typebox";
export type { Static, TSchema } from "typebox";
export { ok, fail, empty, isResult, toResult, resultValue, toError } from "./result.ts";
export type { Result, OkResult, FailResult, EmptyResult, HandleReturn } from "./result.ts";
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
  errorPayload,
} from "./errors.ts";
export type { ErrorPayload } from "./errors.ts";
export { target, source, isSystemPort, SystemPort, ERROR_PORT, POSITION_WIRE } from "./ports.ts";
export type { PortSpec, AnyPort, Position, PortOptions } from "./ports.ts";
export { noopTrace } from "./context.ts";
export type { ComponentContext, ComponentLogger, HopTrace, OutputFn, Emitter } from "./context.ts";
export { LABEL_FLOW_NAME, LABEL_PROJECT_NAME } from "./node.ts";
export type {
  TinyNode,
  TinyNodeSpec,
  TinyNodeStatus,
  TinyNodeEdge,
  TinyNodePortConfig,
  TinyNodePortStatus,
  TinyNodeModuleStatus,
  TinyNodeComponentStatus,
  RetryPolicy,
  NodeIdentity,
  NodeUpdater,
} from "./node.ts";
export type { State } from "./state.ts";
export { defineComponent, isComponentDefinition, InvalidComponentError, COMPONENT_BRAND, HOOK_ORDER } from "./component.ts";
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
} from "./component.ts";
export { testComponent } from "./testing.ts";
export type { ComponentHarness, Emitted, TestComponentOptions } from "./testing.ts";
export { isModuleClient } from "./client.ts";
export type { ModuleClient, ExposePortRequest } from "./client.ts";
