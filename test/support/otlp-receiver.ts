/**
 * An in-process OTLP/gRPC receiver (the protocol of the platform collector and of Go's `OTLP_DSN`
 * exporter, runtime-spec §9.1): `TraceService/Export` decodes and keeps every span, with its
 * resource's `service.name` and the request metadata; `MetricsService/Export` accepts and drops
 * what a Go module exports beside its traces. gzip-compressed requests (Go's exporter compresses)
 * are decompressed by grpc-js. Test code only.
 */
import { join } from "node:path";
import {
  loadPackageDefinition,
  Server,
  ServerCredentials,
  type GrpcObject,
  type ServiceClientConstructor,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";

const PROTO_DIR = join(import.meta.dir, "../fixtures/otlp");

/** One exported span, ids as lowercase hex. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** `""` for a root span. */
  parentSpanId: string;
  name: string;
  /** The exporting resource's `service.name`. */
  service: string;
  /** Span attributes; values as strings/booleans/numbers. */
  attributes: Record<string, string | number | boolean>;
}

/** A running receiver. */
export interface OtlpReceiver {
  /** The port it listens on. */
  readonly port: number;
  /** `OTLP_DSN` value that points a module at this receiver (runtime-spec §9.1 DSN form). */
  readonly dsn: string;
  /** Every span received so far. */
  readonly spans: readonly ReceivedSpan[];
  /** Metadata of every trace export request (e.g. `origin-dsn`). */
  readonly requestMetadata: ReadonlyArray<Record<string, string>>;
  /** Stops the server (in-flight calls are cancelled). */
  stop(): Promise<void>;
}

interface WireAnyValue {
  value?: "string_value" | "bool_value" | "int_value" | "double_value";
  string_value?: string;
  bool_value?: boolean;
  int_value?: string;
  double_value?: number;
}
interface WireKeyValue {
  key: string;
  value?: WireAnyValue;
}
interface WireSpan {
  trace_id: Buffer;
  span_id: Buffer;
  parent_span_id: Buffer;
  name: string;
  attributes: WireKeyValue[];
}
interface WireExport {
  resource_spans: Array<{ resource?: { attributes: WireKeyValue[] }; scope_spans: Array<{ spans: WireSpan[] }> }>;
}

function attrValue(v: WireAnyValue | undefined): string | number | boolean {
  switch (v?.value) {
    case "string_value":
      return v.string_value ?? "";
    case "bool_value":
      return v.bool_value ?? false;
    case "int_value":
      return Number(v.int_value);
    case "double_value":
      return v.double_value ?? 0;
    default:
      return "";
  }
}

function attrs(list: WireKeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const kv of list ?? []) out[kv.key] = attrValue(kv.value);
  return out;
}

function service(pkg: GrpcObject, path: string[]): ServiceClientConstructor {
  let cur: unknown = pkg;
  for (const p of path) cur = (cur as Record<string, unknown>)[p];
  return cur as ServiceClientConstructor;
}

/**
 * Starts a receiver on a free port of `host` (default 127.0.0.1; a real node's pods reach the host
 * at RealNode.hostIp).
 * @throws Error when the port cannot be bound.
 */
export async function startOtlpReceiver(host = "127.0.0.1"): Promise<OtlpReceiver> {
  const opts = { keepCase: true, longs: String, bytes: Buffer, defaults: true, arrays: true, oneofs: true } as const;
  const traces = loadPackageDefinition(loadSync(join(PROTO_DIR, "collector.proto"), opts));
  const metrics = loadPackageDefinition(loadSync(join(PROTO_DIR, "metrics.proto"), opts));
  const spans: ReceivedSpan[] = [];
  const requestMetadata: Array<Record<string, string>> = [];
  const server = new Server();
  const traceImpl: UntypedServiceImplementation = {
    Export: (call: { request: WireExport; metadata: { getMap(): Record<string, unknown> } }, cb: (e: null, r: object) => void) => {
      requestMetadata.push(Object.fromEntries(Object.entries(call.metadata.getMap()).map(([k, v]) => [k, String(v)])));
      for (const rs of call.request.resource_spans) {
        const svc = String(attrs(rs.resource?.attributes)["service.name"] ?? "");
        for (const ss of rs.scope_spans) {
          for (const s of ss.spans) {
            spans.push({
              traceId: s.trace_id.toString("hex"),
              spanId: s.span_id.toString("hex"),
              parentSpanId: s.parent_span_id.toString("hex"),
              name: s.name,
              service: svc,
              attributes: attrs(s.attributes),
            });
          }
        }
      }
      cb(null, {});
    },
  };
  server.addService(service(traces, ["opentelemetry", "proto", "collector", "trace", "v1", "TraceService"]).service, traceImpl);
  server.addService(service(metrics, ["opentelemetry", "proto", "collector", "metrics", "v1", "MetricsService"]).service, {
    Export: (_call: unknown, cb: (e: null, r: object) => void) => cb(null, {}),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:0`, ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    port,
    dsn: `http://test-token@${host}:${port}`,
    spans,
    requestMetadata,
    stop: () =>
      new Promise<void>((resolve) => {
        server.forceShutdown();
        resolve();
      }),
  };
}
