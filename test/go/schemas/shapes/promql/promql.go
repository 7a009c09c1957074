// Package promql declares the port types of http-module `promql` (component `promql_query`).
package promql

import "tinyhost.test/gotools/schemas/shapes/etc"

type Context any

type Settings struct {
	BaseURL         string       `json:"baseURL" required:"true" title:"Base URL" description:"Root of the metrics API, e.g. http://prometheus-server.monitoring.svc.cluster.local or https://prometheus-prod-01.grafana.net/api/prom. The /api/v1 path is appended."`
	OrgID           string       `json:"orgID,omitempty" title:"Tenant (X-Scope-OrgID)" description:"Tenant header for multi-tenant backends (Mimir, Grafana Cloud, Cortex). Leave empty for a single-tenant Prometheus."`
	Headers         []etc.Header `json:"headers,omitempty" title:"Extra Headers" description:"Sent with every request, for backends that authenticate with a custom header."`
	TimeoutSeconds  int          `json:"timeoutSeconds" required:"true" title:"Timeout (seconds)"`
	EnableErrorPort bool         `json:"enableErrorPort" title:"Enable Error Port" description:"Emit failures on the error port instead of failing the flow."`
}

type Request struct {
	Context      Context `json:"context,omitempty" configurable:"true" title:"Context" description:"Passed through to the result unchanged."`
	Query        string  `json:"query" required:"true" title:"PromQL" format:"textarea" description:"PromQL expression, e.g. sum(rate(container_cpu_usage_seconds_total[5m])) by (pod)."`
	RangeMinutes int     `json:"rangeMinutes,omitempty" title:"Range (minutes)" description:"Query over a window instead of at an instant. Empty or 0 evaluates once, now."`
	StepSeconds  int     `json:"stepSeconds,omitempty" title:"Step (seconds)" description:"Resolution of a range query. Defaults to a step that keeps the series under 500 points."`
	Token        string  `json:"token,omitempty" format:"password" title:"Bearer Token" description:"Carried per-request from the trigger widget the user fills, so the credential is not stored in the flow."`
	Username     string  `json:"username,omitempty" title:"Username" description:"For backends using basic auth (Grafana Cloud uses the instance id here, with the token as the password)."`
}

type Series struct {
	Labels map[string]string `json:"labels" title:"Labels"`
	Value  float64           `json:"value" title:"Value" description:"Latest sample. For a range query this is the most recent point."`
	Points []Point           `json:"points,omitempty" title:"Points" description:"Samples over the window, oldest first. Empty for an instant query."`
}

type Point struct {
	At    string  `json:"at" title:"At" description:"RFC3339."`
	Value float64 `json:"value" title:"Value"`
}

type Result struct {
	Context   Context  `json:"context,omitempty" title:"Context"`
	Series    []Series `json:"series" title:"Series" description:"Matching metric streams."`
	Count     int      `json:"count" title:"Count" description:"Series returned."`
	Truncated bool     `json:"truncated" title:"Truncated" description:"True when the query matched more series than were returned."`
}
