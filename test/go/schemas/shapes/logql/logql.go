// Package logql declares the port types of http-module `logql` (component `logql_query`).
package logql

import "tinyhost.test/gotools/schemas/shapes/etc"

type Context any

type Settings struct {
	BaseURL         string       `json:"baseURL" required:"true" title:"Base URL" description:"Root of the Loki API, e.g. http://loki.monitoring.svc.cluster.local:3100 or https://logs-prod-01.grafana.net. The /loki/api/v1 path is appended."`
	OrgID           string       `json:"orgID,omitempty" title:"Tenant (X-Scope-OrgID)" description:"Tenant header for multi-tenant Loki. Leave empty for single-tenant."`
	Headers         []etc.Header `json:"headers,omitempty" title:"Extra Headers" description:"Sent with every request, for backends that authenticate with a custom header."`
	TimeoutSeconds  int          `json:"timeoutSeconds" required:"true" title:"Timeout (seconds)"`
	EnableErrorPort bool         `json:"enableErrorPort" title:"Enable Error Port" description:"Emit failures on the error port instead of failing the flow."`
}

type Request struct {
	Context      Context `json:"context,omitempty" configurable:"true" title:"Context" description:"Passed through to the result unchanged."`
	Query        string  `json:"query" required:"true" title:"LogQL" format:"textarea" description:"LogQL selector, e.g. {namespace=\"prod\"} |= \"error\". A stream selector in braces is mandatory — Loki rejects a bare search."`
	RangeMinutes int     `json:"rangeMinutes,omitempty" title:"Range (minutes)" description:"Window to search. Defaults to 60."`
	Limit        int     `json:"limit,omitempty" title:"Limit" description:"Maximum log lines. Capped at 500."`
	Token        string  `json:"token,omitempty" format:"password" title:"Bearer Token" description:"Carried per-request from the trigger widget the user fills, so the credential is not stored in the flow."`
	Username     string  `json:"username,omitempty" title:"Username" description:"For backends using basic auth (Grafana Cloud uses the instance id here, with the token as the password)."`
}

type Entry struct {
	At     string            `json:"at" title:"At" description:"RFC3339."`
	Line   string            `json:"line" title:"Line"`
	Labels map[string]string `json:"labels" title:"Labels" description:"Stream labels — namespace, pod, container."`
}

type Result struct {
	Context   Context `json:"context,omitempty" title:"Context"`
	Entries   []Entry `json:"entries" title:"Entries" description:"Matching lines, newest first."`
	Count     int     `json:"count" title:"Count"`
	Truncated bool    `json:"truncated" title:"Truncated" description:"True when the query matched more lines than were returned — narrow the window or the selector before concluding anything from the sample."`
}
