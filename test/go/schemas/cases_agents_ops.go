package main

import (
	"github.com/tiny-systems/module/module"
	"tinyhost.test/gotools/schemas/shapes/authparse"
	"tinyhost.test/gotools/schemas/shapes/budgetguard"
	"tinyhost.test/gotools/schemas/shapes/chat"
	"tinyhost.test/gotools/schemas/shapes/etc"
	"tinyhost.test/gotools/schemas/shapes/flowtelemetry"
	"tinyhost.test/gotools/schemas/shapes/form"
	"tinyhost.test/gotools/schemas/shapes/logql"
	"tinyhost.test/gotools/schemas/shapes/promql"
	"tinyhost.test/gotools/schemas/shapes/runstart"
	"tinyhost.test/gotools/schemas/shapes/runstatus"
)

// Cases of the agent, run, dashboard and observability components: budget_guard, run_start,
// run_status, chat, form, flow_telemetry (common-module); http_auth_parse, promql_query,
// logql_query (http-module). Each port list is what the Go component's Ports() returns in that
// state, in its order, without `_reconcile` (ReadStatus drops it).
func init() {
	cases = append(cases,
		schemaCase{"budget_guard/default", "budget_guard", []port{
			{"_settings", budgetguard.Settings{MaxIterations: 10}},
			{"request", budgetguard.Request{}},
			{"proceed", budgetguard.Proceed{Iteration: 1, SpentTokens: 0, SpentUSD: 0, Remaining: 9}},
			{"exceeded", budgetguard.Exceeded{Reason: "iteration limit reached (10)", Iteration: 11}},
		}},
		schemaCase{"budget_guard/ceilings", "budget_guard", []port{
			{"_settings", budgetguard.Settings{MaxIterations: 3, MaxTokens: 1000, MaxCostUSD: 0.5}},
			{"request", budgetguard.Request{}},
			{"proceed", budgetguard.Proceed{Iteration: 1, SpentTokens: 0, SpentUSD: 0, Remaining: 9}},
			{"exceeded", budgetguard.Exceeded{Reason: "iteration limit reached (10)", Iteration: 11}},
		}},
		schemaCase{"run_start/default", "run_start", []port{
			{"in", runstart.Request{}},
			{"out", new(runstart.OutMessage)},
			{"started", runstart.Started{}},
		}},
		schemaCase{"run_status/default", "run_status", []port{
			{"request", runstatus.Request{}},
			{"response", runstatus.Response{}},
		}},
		schemaCase{"chat/default", "chat", chatPorts(chat.Settings{HistoryLimit: 50})},
		schemaCase{"chat/form-mode", "chat", chatPorts(chatFormMode)},
		schemaCase{"form/default", "form", formPorts(nil)},
		schemaCase{"form/fields", "form", formPorts(map[string]interface{}{"apiKey": "", "label": "prod"})},
		schemaCase{"flow_telemetry/default", "flow_telemetry", flowTelemetryPorts(false)},
		schemaCase{"flow_telemetry/error-port", "flow_telemetry", flowTelemetryPorts(true)},
		schemaCase{"http_auth_parse/default", "http_auth_parse", []port{
			{"in", authparse.InMessage{}},
			{"out", authparse.OutMessage{}},
		}},
		schemaCase{"promql_query/default", "promql_query", promqlPorts(promql.Settings{TimeoutSeconds: 30})},
		schemaCase{"promql_query/error-port", "promql_query", promqlPorts(promql.Settings{
			BaseURL: "http://prometheus.monitoring:9090", OrgID: "tenant-1", TimeoutSeconds: 10, EnableErrorPort: true,
			Headers: []etc.Header{{Key: "X-Api-Key", Value: "k"}},
		})},
		schemaCase{"logql_query/default", "logql_query", logqlPorts(logql.Settings{TimeoutSeconds: 30})},
		schemaCase{"logql_query/error-port", "logql_query", logqlPorts(logql.Settings{
			BaseURL: "http://loki.monitoring:3100", OrgID: "tenant-1", TimeoutSeconds: 10, EnableErrorPort: true,
			Headers: []etc.Header{{Key: "X-Api-Key", Value: "k"}},
		})},
	)
}

// chatFormMode: an authored question form, a timeout with the error port, a placeholder and the
// composer hidden.
var chatFormMode = chat.Settings{
	Form:            `{"type":"object","properties":{"replicas":{"type":"number","title":"Replicas"},"reason":{"type":"string"},"ok":{"type":"boolean","format":"button"}}}`,
	TimeoutSeconds:  30,
	EnableErrorPort: true,
	HistoryLimit:    20,
	Placeholder:     "Ask the agent…",
	HideComposer:    true,
}

// chatPorts is chat's Ports() for settings s on a node with no conversation yet: `_control`
// carries the empty thread (a nil slice) and the authored chat schema.
func chatPorts(s chat.Settings) []port {
	form := s.Form
	if form == "" {
		form = chat.DefaultForm
	}
	control := map[string]interface{}{"thread": nil, "placeholder": s.Placeholder}
	if s.HideComposer {
		control["hideComposer"] = true
	}
	ports := []port{
		{"_settings", s},
		{"say", chat.Say{}},
		{"ask", chat.AskRequest{}},
		{"clear", chat.ClearRequest{}},
		{"message", chat.Message{}},
		{"answer", chat.Answer{Values: chat.SampleValues(form)}},
		{"_control", authored{control, chat.ControlSchema()}},
	}
	if s.EnableErrorPort {
		ports = append(ports, port{"error", chat.ErrorMessage{}})
	}
	return ports
}

// formPorts is form's Ports() with the settings context (the authored fields) and no result yet.
func formPorts(fields form.Context) []port {
	return []port{
		{"_settings", form.Settings{Context: fields}},
		{"out", new(form.Context)},
		{"result", form.ResultMessage{}},
		{"_control", form.Control{Context: fields}},
	}
}

func flowTelemetryPorts(errorPort bool) []port {
	ports := []port{
		{"_settings", flowtelemetry.Settings{OtelService: "tinysystems-otel-collector", OtelPort: 2345, EnableErrorPort: errorPort}},
		{"request", flowtelemetry.Request{}},
		{"result", flowtelemetry.Result{
			Traces: []flowtelemetry.Trace{{ID: "abc123", Spans: 4, Errors: 1, DurationMs: 120, StartedAt: "2026-07-30T00:00:00Z"}},
			Spans:  []flowtelemetry.Span{{ID: "s1", Name: "hop", From: "node-a:out", To: "node-b:in", DurationMs: 12}},
		}},
	}
	if errorPort {
		ports = append(ports, port{"error", module.ErrorMessage{}})
	}
	return ports
}

func promqlPorts(s promql.Settings) []port {
	ports := []port{
		{"_settings", s},
		{"request", promql.Request{}},
		{"result", promql.Result{
			Series: []promql.Series{{
				Labels: map[string]string{"pod": "example-pod"},
				Value:  0.42,
				Points: []promql.Point{{At: "2026-07-30T00:00:00Z", Value: 0.42}},
			}},
			Count: 1,
		}},
	}
	if s.EnableErrorPort {
		ports = append(ports, port{"error", module.ErrorMessage{}})
	}
	return ports
}

func logqlPorts(s logql.Settings) []port {
	ports := []port{
		{"_settings", s},
		{"request", logql.Request{}},
		{"result", logql.Result{
			Entries: []logql.Entry{{
				At:     "2026-07-30T00:00:00Z",
				Line:   "example log line",
				Labels: map[string]string{"namespace": "prod", "pod": "example-pod"},
			}},
			Count: 1,
		}},
	}
	if s.EnableErrorPort {
		ports = append(ports, port{"error", module.ErrorMessage{}})
	}
	return ports
}
