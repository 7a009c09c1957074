/**
 * The gRPC wire contract of the fallback transport (runtime-spec §4.7): Go's
 * `internal/server/proto/module.*.proto`, kept here as text (for readers and tests) and as a
 * protobufjs JSON descriptor (what the loader uses). Defining it inline means `bun build --compile`
 * needs no `.proto` file at run time.
 */
import type { ServiceDefinition } from "@grpc/grpc-js";
import { fromJSON, type Options } from "@grpc/proto-loader";

/** The `.proto` text of Go's module service, package `module` (runtime-spec §4.7). */
export const MODULE_PROTO = `syntax = "proto3";
package module;

message MessageRequest {
  string ID = 1;
  string From = 2;
  string To = 3;
  bytes Payload = 4;
  string EdgeID = 5;
}

message MessageResponse {
  bytes Data = 1;
}

service ModuleService {
  rpc Message(MessageRequest) returns (MessageResponse);
}
`;

/** The full method name of the hop RPC (runtime-spec §4.7, §13.3). */
export const MESSAGE_METHOD = "/module.ModuleService/Message";

/**
 * A decoded `module.MessageRequest` as the loader yields it (proto3 defaults filled in): field
 * names keep Go's case. `ID` is unused by the Go runtime (always `""`).
 */
export interface MessageRequestWire {
  ID: string;
  From: string;
  To: string;
  /** JSON bytes of the hop payload; empty when the hop carries nothing. */
  Payload: Uint8Array;
  EdgeID: string;
}

/** A decoded `module.MessageResponse`: `Data` empty means "no result" (runtime-spec §4.7). */
export interface MessageResponseWire {
  Data: Uint8Array;
}

/** The protobufjs JSON form of {@link MODULE_PROTO} (same names, numbers and types). */
export const MODULE_DESCRIPTOR = {
  nested: {
    module: {
      nested: {
        MessageRequest: {
          fields: {
            ID: { type: "string", id: 1 },
            From: { type: "string", id: 2 },
            To: { type: "string", id: 3 },
            Payload: { type: "bytes", id: 4 },
            EdgeID: { type: "string", id: 5 },
          },
        },
        MessageResponse: {
          fields: {
            Data: { type: "bytes", id: 1 },
          },
        },
        ModuleService: {
          methods: {
            Message: { requestType: "MessageRequest", responseType: "MessageResponse" },
          },
        },
      },
    },
  },
} as const;

/** Loader options: Go field case, every proto3 default present, bytes as Buffer. */
export const LOADER_OPTIONS: Options = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };

let moduleService: ServiceDefinition | undefined;

/**
 * The grpc-js service definition of `module.ModuleService` (one method, `Message`), built once.
 * @throws Error if the inline descriptor does not load (a programming error, caught by unit tests).
 */
export function moduleServiceDefinition(): ServiceDefinition {
  if (!moduleService) {
    const pkg = fromJSON(structuredClone(MODULE_DESCRIPTOR) as object, LOADER_OPTIONS);
    moduleService = pkg["module.ModuleService"] as unknown as ServiceDefinition;
    if (!moduleService?.Message) throw new Error("module.ModuleService did not load from the inline descriptor");
  }
  return moduleService;
}
