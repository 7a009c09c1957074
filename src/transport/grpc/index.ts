/**
 * gRPC fallback transport (runtime-spec §4.7): used when `TINY_NATS_URL` is unset (§4.1).
 * Server: {@link GrpcServer} (calls admitted to the hop slots by {@link CallAdmission}); sender:
 * {@link GrpcTransport} with its {@link AddressPool}.
 */
export { AddressPool, type AddressPoolOptions, type Closable, type ConnectionLease } from "./address-pool.ts";
export { CallAdmission, type Admission, type CallAdmissionOptions } from "./admission.ts";
export { GrpcTransport, type GrpcTransportOptions } from "./client.ts";
export {
  decodeCallError,
  depthFromMetadata,
  DEPTH_METADATA,
  encodePayload,
  ERROR_CODE_METADATA,
  msgFromRequest,
  REFUSED_METADATA,
  replyFromResult,
  requestFromMsg,
  resultFromReply,
} from "./codec.ts";
export {
  GrpcBindError,
  GrpcCallError,
  GrpcDeadlineError,
  GrpcDecodeError,
  GrpcEncodeError,
  GrpcRouteError,
  ModuleAddressUnknownError,
  RemoteHandlerError,
} from "./errors.ts";
export { HEALTH_CHECK_METHOD, healthServiceDefinition } from "./health.ts";
export { MESSAGE_METHOD, MODULE_PROTO, moduleServiceDefinition, type MessageRequestWire, type MessageResponseWire } from "./proto.ts";
export { advertisedAddress, bindTarget, DEFAULT_STOP_GRACE_MS, GrpcServer, KEEPALIVE_TIME_MS, KEEPALIVE_TIMEOUT_MS, type GrpcServerOptions } from "./server.ts";
