// Package flowtelemetry declares the port types of common-module `flowtelemetry` (component
// `flow_telemetry`).
package flowtelemetry

type Context any

type Settings struct {
	OtelService     string `json:"otelService" required:"true" title:"Collector Service" description:"Kubernetes service name of the otel-collector holding the traces."`
	OtelPort        int    `json:"otelPort" required:"true" title:"Collector Port" description:"Port of the collector's statistics service."`
	Namespace       string `json:"namespace,omitempty" title:"Namespace" description:"Namespace the collector runs in. Defaults to this module's own namespace."`
	EnableErrorPort bool   `json:"enableErrorPort" title:"Enable Error Port" description:"Emit failures on the error port instead of failing the flow."`
}

type Request struct {
	Context         Context `json:"context,omitempty" configurable:"true" title:"Context" description:"Passed through to the result unchanged."`
	Project         string  `json:"project" required:"true" title:"Project" description:"Project whose traces to read — the resource name, e.g. the one list_projects reports."`
	Flow            string  `json:"flow,omitempty" title:"Flow" description:"Limit to one flow. Empty reads every flow in the project."`
	TraceID         string  `json:"traceId,omitempty" title:"Trace ID" description:"Fetch this single trace's spans instead of a list. Use an id from a previous list result."`
	LookbackMinutes int     `json:"lookbackMinutes,omitempty" title:"Lookback (minutes)" description:"How far back to look when listing. Defaults to 60."`
	ErrorsOnly      bool    `json:"errorsOnly,omitempty" title:"Errors Only" description:"List only traces that recorded at least one error."`
}

type Trace struct {
	ID         string `json:"id" title:"Trace ID"`
	Spans      int64  `json:"spans" title:"Spans" description:"Hops the run made."`
	Errors     int64  `json:"errors" title:"Errors"`
	DurationMs int64  `json:"durationMs" title:"Duration (ms)"`
	StartedAt  string `json:"startedAt" title:"Started At" description:"RFC3339."`
}

type Span struct {
	ID         string `json:"id" title:"Span ID"`
	Name       string `json:"name" title:"Name"`
	From       string `json:"from,omitempty" title:"From" description:"Source node and port."`
	To         string `json:"to,omitempty" title:"To" description:"Target node and port."`
	DurationMs int64  `json:"durationMs" title:"Duration (ms)"`
}

type Result struct {
	Context     Context `json:"context,omitempty" title:"Context"`
	Traces      []Trace `json:"traces" title:"Traces" description:"Matching runs, newest first. Empty when a single trace was requested."`
	Spans       []Span  `json:"spans,omitempty" title:"Spans" description:"Hops of the requested trace. Empty when listing."`
	Total       int64   `json:"total" title:"Total" description:"Traces the collector holds for the window, before any filtering."`
	ErrorTraces int     `json:"errorTraces" title:"Error Traces" description:"Traces with at least one error among those scanned."`
	Scanned     int     `json:"scanned" title:"Scanned" description:"Traces examined. Below total when the scan stopped early."`
	Truncated   bool    `json:"truncated" title:"Truncated" description:"True when the scan stopped before the end of the window — treat an empty result as inconclusive, and narrow the window or the flow."`
}
