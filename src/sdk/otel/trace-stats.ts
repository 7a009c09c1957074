/**
 * A client of the platform's trace collector (github.com/tiny-systems/otel-collector, the
 * `tinysystems-otel-collector` Service on port 2345 that `tinyhost provision` installs): its gRPC
 * `api.StatisticsService`, methods `GetTraces` (the runs of a project/flow in a window, paged) and
 * `GetTraceByID` (one run's spans) — what the Go SDK's pkg/utils `TraceService` calls for the
 * flow_telemetry component. The wire contract is the collector's pkg/proto (stats.service.proto,
 * stats.messages.proto, trace.proto) and OTLP's `opentelemetry.proto.trace.v1.Span`, kept here as a
 * protobufjs JSON descriptor of the fields read (unknown fields are skipped by protobuf), so
 * `bun build --compile` needs no `.proto` file. grpc-js loads on the first call only.
 */
import type { Client, ServiceError } from "@grpc/grpc-js";
import { TinyError } from "../../core/errors.ts";

/** One run (trace) as the collector summarises it (collector `TraceInfo`). */
export interface TraceSummary {
  id: string;
  spans: number;
  errors: number;
  /** Nanoseconds. */
  durationNs: number;
  /** Start, microseconds since the epoch (what the collector records). */
  startUs: number;
}

/** A page of {@link TraceStatsClient.getTraces}. */
export interface TracesPage {
  traces: TraceSummary[];
  /** Traces the collector holds for the window, before any filtering. */
  total: number;
}

/** One span of a trace with its attributes rendered as text (Go pkg/utils `attributeValue`). */
export interface TraceSpan {
  /** Lowercase hex of the span id. */
  spanId: string;
  name: string;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, string>;
}

const T64 = "int64";
const DESCRIPTOR = {
  nested: {
    api: {
      nested: {
        StatisticsGetTracesRequest: {
          fields: {
            FlowID: { type: "string", id: 1 },
            Start: { type: "google.protobuf.Timestamp", id: 2 },
            End: { type: "google.protobuf.Timestamp", id: 3 },
            Offset: { type: T64, id: 4 },
            ProjectID: { type: "string", id: 5 },
          },
        },
        StatisticsGetTracesResponse: {
          fields: { Traces: { rule: "repeated", type: "TraceInfo", id: 1 }, Total: { type: T64, id: 2 }, Offset: { type: T64, id: 3 } },
        },
        TraceInfo: {
          fields: {
            ID: { type: "string", id: 1 },
            Spans: { type: T64, id: 2 },
            Errors: { type: T64, id: 3 },
            Data: { type: T64, id: 4 },
            Length: { type: T64, id: 5 },
            Duration: { type: T64, id: 6 },
            Start: { type: T64, id: 7 },
            End: { type: T64, id: 8 },
          },
        },
        GetTraceByIDRequest: { fields: { trace_id: { type: "string", id: 1 }, project_id: { type: "string", id: 2 } } },
        GetTraceByIDResponse: {
          fields: { trace_id: { type: "string", id: 1 }, spans: { rule: "repeated", type: "opentelemetry.proto.trace.v1.Span", id: 11 } },
        },
        StatisticsService: {
          methods: {
            GetTraces: { requestType: "StatisticsGetTracesRequest", responseType: "StatisticsGetTracesResponse" },
            GetTraceByID: { requestType: "GetTraceByIDRequest", responseType: "GetTraceByIDResponse" },
          },
        },
      },
    },
    google: { nested: { protobuf: { nested: { Timestamp: { fields: { seconds: { type: T64, id: 1 }, nanos: { type: "int32", id: 2 } } } } } } },
    opentelemetry: {
      nested: {
        proto: {
          nested: {
            common: {
              nested: {
                v1: {
                  nested: {
                    AnyValue: {
                      oneofs: { value: { oneof: ["string_value", "bool_value", "int_value", "double_value"] } },
                      fields: {
                        string_value: { type: "string", id: 1 },
                        bool_value: { type: "bool", id: 2 },
                        int_value: { type: T64, id: 3 },
                        double_value: { type: "double", id: 4 },
                      },
                    },
                    KeyValue: { fields: { key: { type: "string", id: 1 }, value: { type: "AnyValue", id: 2 } } },
                  },
                },
              },
            },
            trace: {
              nested: {
                v1: {
                  nested: {
                    Span: {
                      fields: {
                        trace_id: { type: "bytes", id: 1 },
                        span_id: { type: "bytes", id: 2 },
                        name: { type: "string", id: 5 },
                        start_time_unix_nano: { type: "fixed64", id: 7 },
                        end_time_unix_nano: { type: "fixed64", id: 8 },
                        attributes: { rule: "repeated", type: "opentelemetry.proto.common.v1.KeyValue", id: 9 },
                      },
                    },
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

type Call = (req: unknown, options: { deadline: Date }, cb: (err: ServiceError | null, res: unknown) => void) => void;
type StatsStub = Client & { GetTraces: Call; GetTraceByID: Call };

interface AnyValueWire {
  value?: "string_value" | "bool_value" | "int_value" | "double_value";
  string_value?: string;
  bool_value?: boolean;
  int_value?: string;
  double_value?: number;
}

/** An attribute value as text, whatever its kind (Go pkg/utils `attributeValue`). */
function attributeText(v: AnyValueWire | null | undefined): string {
  if (!v || !v.value) return "";
  const x = v[v.value];
  return x === undefined ? "" : String(x);
}

let stubClass: Promise<new (address: string, credentials: unknown) => StatsStub> | undefined;

async function loadStub(): Promise<{ Stub: new (address: string, credentials: unknown) => StatsStub; insecure: () => unknown }> {
  const grpc = await import("@grpc/grpc-js");
  stubClass ??= (async () => {
    const { fromJSON } = await import("@grpc/proto-loader");
    const pkg = fromJSON(structuredClone(DESCRIPTOR) as object, { keepCase: true, longs: String, defaults: true, oneofs: true });
    return grpc.makeGenericClientConstructor(pkg["api.StatisticsService"] as never, "StatisticsService") as unknown as new (
      address: string,
      credentials: unknown,
    ) => StatsStub;
  })();
  return { Stub: await stubClass, insecure: () => grpc.credentials.createInsecure() };
}

/** A collector call failed (unreachable, deadline, an error status). code `"TRACE_STATS"`. */
export class TraceStatsError extends TinyError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("TRACE_STATS", message, options);
  }
}

/**
 * One connection to a collector's statistics service (plaintext gRPC, as the Go client dials it).
 * Close it when done.
 */
export class TraceStatsClient {
  #stub: Promise<StatsStub>;

  /** @param address `host:port` of the collector, e.g. `tinysystems-otel-collector.tinysystems.svc.cluster.local:2345`. */
  constructor(readonly address: string) {
    this.#stub = loadStub().then(({ Stub, insecure }) => new Stub(address, insecure()));
    this.#stub.catch(() => undefined);
  }

  async #call(method: "GetTraces" | "GetTraceByID", req: unknown, deadlineMs: number, signal?: AbortSignal): Promise<unknown> {
    const stub = await this.#stub;
    return new Promise((resolve, reject) => {
      const call = stub[method].call(stub, req, { deadline: new Date(Date.now() + deadlineMs) }, (err, res) => {
        signal?.removeEventListener("abort", onAbort);
        if (err) reject(new TraceStatsError(`${method}: ${err.details || err.message}`, { cause: err }));
        else resolve(res);
      }) as unknown as { cancel?: () => void } | undefined;
      const onAbort = () => call?.cancel?.();
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /**
   * The runs of `project` (and `flow`, "" = all) between `start` and `end`, from `offset` on.
   * @throws TraceStatsError when the collector cannot be reached or answers an error.
   */
  async getTraces(q: { project: string; flow: string; start: Date; end: Date; offset: number }, deadlineMs: number, signal?: AbortSignal): Promise<TracesPage> {
    const ts = (d: Date) => ({ seconds: String(Math.floor(d.getTime() / 1000)), nanos: (d.getTime() % 1000) * 1_000_000 });
    const res = (await this.#call(
      "GetTraces",
      { ProjectID: q.project, FlowID: q.flow, Start: ts(q.start), End: ts(q.end), Offset: String(q.offset) },
      deadlineMs,
      signal,
    )) as {
      Traces: { ID: string; Spans: string; Errors: string; Duration: string; Start: string }[];
      Total: string;
    };
    return {
      total: Number(res.Total),
      traces: res.Traces.map((t) => ({ id: t.ID, spans: Number(t.Spans), errors: Number(t.Errors), durationNs: Number(t.Duration), startUs: Number(t.Start) })),
    };
  }

  /**
   * The spans of trace `traceId` of `project`.
   * @throws TraceStatsError when the collector cannot be reached or answers an error (e.g. unknown trace).
   */
  async getTrace(q: { project: string; traceId: string }, deadlineMs: number, signal?: AbortSignal): Promise<TraceSpan[]> {
    const res = (await this.#call("GetTraceByID", { trace_id: q.traceId, project_id: q.project }, deadlineMs, signal)) as {
      spans: {
        span_id: Uint8Array;
        name: string;
        start_time_unix_nano: string;
        end_time_unix_nano: string;
        attributes: { key: string; value: AnyValueWire | null }[];
      }[];
    };
    return res.spans.map((s) => ({
      spanId: Buffer.from(s.span_id).toString("hex"),
      name: s.name,
      startNs: BigInt(s.start_time_unix_nano),
      endNs: BigInt(s.end_time_unix_nano),
      attributes: Object.fromEntries(s.attributes.map((a) => [a.key, attributeText(a.value)])),
    }));
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    try {
      (await this.#stub).close();
    } catch {
      // never connected
    }
  }
}
