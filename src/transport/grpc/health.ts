/**
 * The standard gRPC health service `grpc.health.v1.Health`
 * (https://github.com/grpc/grpc/blob/master/doc/health-checking.md), answered the way Go's
 * `internal/server/services/health` does (runtime-spec §4.7): `Check` → SERVING for any service
 * name; `Watch` → one SERVING message, then the stream ends.
 */
import type { ServerUnaryCall, ServerWritableStream, ServiceDefinition, UntypedServiceImplementation, sendUnaryData } from "@grpc/grpc-js";
import { fromJSON } from "@grpc/proto-loader";
import { LOADER_OPTIONS } from "./proto.ts";

/** Full method name of the health check RPC. */
export const HEALTH_CHECK_METHOD = "/grpc.health.v1.Health/Check";

/** `HealthCheckRequest{string service = 1}`. */
export interface HealthCheckRequest {
  service: string;
}

/** `HealthCheckResponse{ServingStatus status = 1}`; enums travel as their names. */
export interface HealthCheckResponse {
  status: "UNKNOWN" | "SERVING" | "NOT_SERVING" | "SERVICE_UNKNOWN";
}

/** protobufjs JSON form of `grpc/health/v1/health.proto` (package `grpc.health.v1`). */
export const HEALTH_DESCRIPTOR = {
  nested: {
    grpc: {
      nested: {
        health: {
          nested: {
            v1: {
              nested: {
                HealthCheckRequest: { fields: { service: { type: "string", id: 1 } } },
                HealthCheckResponse: {
                  fields: { status: { type: "ServingStatus", id: 1 } },
                  nested: { ServingStatus: { values: { UNKNOWN: 0, SERVING: 1, NOT_SERVING: 2, SERVICE_UNKNOWN: 3 } } },
                },
                Health: {
                  methods: {
                    Check: { requestType: "HealthCheckRequest", responseType: "HealthCheckResponse" },
                    Watch: { requestType: "HealthCheckRequest", responseType: "HealthCheckResponse", responseStream: true },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
} as const;

let health: ServiceDefinition | undefined;

/** The grpc-js definition of `grpc.health.v1.Health` (built once). */
export function healthServiceDefinition(): ServiceDefinition {
  health ??= fromJSON(structuredClone(HEALTH_DESCRIPTOR) as object, LOADER_OPTIONS)["grpc.health.v1.Health"] as unknown as ServiceDefinition;
  return health;
}

/** Handlers for {@link healthServiceDefinition}: always SERVING, as Go's checker. */
export function healthImplementation(): UntypedServiceImplementation {
  return {
    Check(_call: ServerUnaryCall<HealthCheckRequest, HealthCheckResponse>, callback: sendUnaryData<HealthCheckResponse>) {
      callback(null, { status: "SERVING" });
    },
    Watch(call: ServerWritableStream<HealthCheckRequest, HealthCheckResponse>) {
      call.write({ status: "SERVING" });
      call.end();
    },
  };
}
