// Command otel-collector runs the platform's trace collector, github.com/tiny-systems/otel-collector
// (the module the Go SDK's pkg/utils trace service talks to), as the flow_telemetry tests' real
// server: OTLP traces in over gRPC, its StatisticsService (GetTraces, GetTraceByID) out on the same
// port. Built from the Go module proxy against the SDK pinned in go.mod; run it as
// `otel-collector run` with GRPC_LISTEN_ADDRESS set.
package main

import "github.com/tiny-systems/otel-collector/cli"

func main() { cli.Execute() }
