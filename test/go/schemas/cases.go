package main

import (
	"encoding/json"
	"reflect"

	"tinyhost.test/gotools/schemas/shapes/arrayfilter"
	"tinyhost.test/gotools/schemas/shapes/arrayget"
	"tinyhost.test/gotools/schemas/shapes/async"
	"tinyhost.test/gotools/schemas/shapes/client"
	"tinyhost.test/gotools/schemas/shapes/collect"
	"tinyhost.test/gotools/schemas/shapes/counter"
	"tinyhost.test/gotools/schemas/shapes/cron"
	"tinyhost.test/gotools/schemas/shapes/debug"
	"tinyhost.test/gotools/schemas/shapes/delay"
	"tinyhost.test/gotools/schemas/shapes/display"
	"tinyhost.test/gotools/schemas/shapes/etc"
	"tinyhost.test/gotools/schemas/shapes/groupby"
	"tinyhost.test/gotools/schemas/shapes/inject"
	"tinyhost.test/gotools/schemas/shapes/jseval"
	"tinyhost.test/gotools/schemas/shapes/kv"
	"tinyhost.test/gotools/schemas/shapes/modify"
	"tinyhost.test/gotools/schemas/shapes/retry"
	"tinyhost.test/gotools/schemas/shapes/router"
	"tinyhost.test/gotools/schemas/shapes/server"
	"tinyhost.test/gotools/schemas/shapes/signal"
	"tinyhost.test/gotools/schemas/shapes/split"
	"tinyhost.test/gotools/schemas/shapes/ticker"
)

// port is one port as a component's Ports() returns it: the name and its Configuration value
// (an authored value for a port that also carries a Schema).
type port struct {
	Name          string
	Configuration interface{}
}

// authored is the Configuration of a port whose shape is known only at runtime: its value and
// the Schema the component sets on the port (module.Port.Schema, published verbatim).
type authored struct {
	Value  interface{}
	Schema json.RawMessage
}

// configuration is a port's Configuration value and its authored Schema (nil when reflected).
func (p port) configuration() (interface{}, json.RawMessage) {
	if a, ok := p.Configuration.(authored); ok {
		return a.Value, a.Schema
	}
	return p.Configuration, nil
}

// schemaCase is one component in one state: the ports its Ports() returns then, with the values
// the real component fills in (its Instance() defaults, or what the state puts there).
type schemaCase struct {
	Name      string
	Component string
	Ports     []port
}

const maxResponseBytes = 10 * 1024 * 1024

func routerPorts(routes []string, withDefault bool) []port {
	first := "A"
	if len(routes) > 0 {
		first = routes[0]
	}
	ports := []port{
		{"_settings", router.Settings{Routes: routes, EnableDefaultPort: withDefault}},
		{"input", router.InMessage{Conditions: []router.Condition{{RouteName: router.RouteName{Value: first, Options: routes}, Condition: true}}}},
	}
	for _, r := range routes {
		ports = append(ports, port{"out_" + lower(r), new(router.OutMessage)})
	}
	if withDefault {
		ports = append(ports, port{"default", new(router.OutMessage)})
	}
	return ports
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

var signalContext = map[string]interface{}{"name": "x", "n": 1.0, "tags": []interface{}{"a"}, "nested": map[string]interface{}{"ok": true}}

func serverPorts(stop, status bool) []port {
	ports := []port{
		{"_settings", server.Settings{EnableStopPort: stop, EnableStatusPort: status}},
		{"request", server.Request{}},
		{"response", server.Response{StatusCode: 200}},
		{"_control", server.Control{Status: "Not running"}},
		{"start", server.Start{WriteTimeout: 10, ReadTimeout: 60, AutoHostName: true}},
	}
	if stop {
		ports = append(ports, port{"stop", server.Stop{}})
	}
	if status {
		ports = append(ports, port{"status", server.Status{ListenAddr: []string{}}})
	}
	return ports
}

func clientPorts(errorPort bool) []port {
	ports := []port{
		{"request", client.Request{Method: "GET", Headers: make([]etc.Header, 0), Timeout: 10, ContentType: "application/json"}},
		{"response", client.Response{}},
		{"_settings", client.Settings{EnableErrorPort: errorPort, MaxResponseBytes: maxResponseBytes}},
	}
	if errorPort {
		ports = append(ports, port{"error", client.Error{}})
	}
	return ports
}

// jsEvalDefaults is js_eval's defaultEngineSettings (what its Instance() starts with).
func jsEvalDefaults() jseval.Settings {
	return jseval.Settings{
		Script:  jseval.Script{Name: "main.js", Content: "import {lodash} from \"https://cdn.jsdelivr.net/npm/@esm-bundle/lodash@4.17.21/+esm\";\nimport {typeOf} from \"utils.js\";\nexport default function(inp) {\n  return lodash.isFunction(typeOf) + typeOf(inp)\n}"},
		Modules: []jseval.ScriptItem{{Name: "utils.js", Content: "export function typeOf(input) {return typeof input}"}},
	}
}

// jsEvalPorts is what js_eval's Ports() returns with settings s: request and response carry the
// settings' inputData/outputData examples, error exists only with enableErrorPort.
func jsEvalPorts(s jseval.Settings) []port {
	ports := []port{
		{"request", jseval.Request{InputData: s.InputData}},
		{"response", jseval.Response{OutputData: s.OutputData}},
		{"_settings", s},
	}
	if s.EnableErrorPort {
		ports = append(ports, port{"error", jseval.Error{}})
	}
	return ports
}

// jsEvalErrorPort is the error port turned on with a script of the node's own (one that compiles
// without the network, so tinyhost adopts it too).
func jsEvalErrorPort() jseval.Settings {
	return jseval.Settings{
		EnableErrorPort: true,
		Script:          jseval.Script{Name: "main.js", Content: "import {typeOf} from \"utils.js\";\nexport default function(inp) { return typeOf(inp) }"},
		Modules:         []jseval.ScriptItem{{Name: "utils.js", Content: "export function typeOf(input) {return typeof input}"}},
	}
}

// jsEvalExamples are settings a user saves: a script of their own, one module, a time limit and
// inputData/outputData examples (objects whose members differ in type, a list
// of objects, a nested object) — the values the SDK reflects into the request/response schemas.
func jsEvalExamples() jseval.Settings {
	return jseval.Settings{
		InputData:      map[string]interface{}{"items": []interface{}{map[string]interface{}{"sku": "a-1", "qty": 2.0}}, "customer": map[string]interface{}{"name": "Ada", "vip": true}},
		OutputData:     map[string]interface{}{"total": 42.5, "lines": []interface{}{"a-1 x2"}},
		Script:         jseval.Script{Name: "main.js", Content: "import {fmt} from \"fmt.js\";\nexport default function(inp) { return {total: 42.5, lines: inp.items.map(fmt)} }"},
		Modules:        []jseval.ScriptItem{{Name: "fmt.js", Content: "export function fmt(i) { return i.sku + \" x\" + i.qty }"}},
		TimeoutSeconds: 5,
	}
}

// arrayGetPorts is array_get's Ports(): its _settings port always publishes Settings{} (Go), the
// error port exists only with enableErrorPort.
func arrayGetPorts(errorPort bool) []port {
	ports := []port{
		{"_settings", arrayget.Settings{}},
		{"request", arrayget.Request{Array: []arrayget.Item{"first", "second", "third"}, Index: 1}},
		{"result", arrayget.Result{Item: "first", Index: 1}},
	}
	if errorPort {
		ports = append(ports, port{"error", arrayget.Error{}})
	}
	return ports
}

func arrayFilterPorts(s arrayfilter.Settings) []port {
	ports := []port{
		{"request", arrayfilter.Request{}},
		{"result", arrayfilter.Result{}},
		{"_settings", s},
	}
	if s.EnableErrorPort {
		ports = append(ports, port{"error", arrayfilter.Error{}})
	}
	return ports
}

func retryPorts(s retry.Settings) []port {
	return []port{
		{"_settings", s},
		{"request", retry.Request{}},
		{"retry", retry.Retry{}},
		{"failed", retry.Failed{}},
	}
}

func displayPorts(settings, shown string) []port {
	return []port{
		{"in", display.InMessage{}},
		{"_control", display.Control{Text: shown}},
		{"_settings", display.Settings{Text: settings}},
	}
}

func injectPorts(s inject.Settings) []port {
	ports := []port{
		{"_settings", s},
		{"config", inject.Config{}},
		{"message", inject.Message{}},
		{"output", inject.Output{}},
	}
	if s.ConfigRequired {
		ports = append(ports, port{"error", inject.ErrorOutput{}})
	}
	return ports
}

// kvPorts is kv's Ports() with settings s and `records` keys in its State.
func kvPorts(s kv.Settings, records int) []port {
	ports := []port{
		{"_settings", s},
		{"_control", kv.Control{Records: records}},
		{"store", kv.StoreRequest{Operation: "store", Document: s.Document}},
		{"query", kv.QueryRequest{Query: "$.status == 'DOWN'"}},
		{"query_result", kv.QueryResult{Results: []kv.QueryResultItem{{Document: s.Document}}}},
	}
	if s.EnableStoreAck {
		ports = append(ports, port{"store_ack", kv.StoreAck{Request: kv.StoreRequest{Document: s.Document}}})
	}
	return ports
}

func kvDefaults() kv.Settings {
	return kv.Settings{PrimaryKey: "id", MaxRecords: 100, Document: kv.Document{"id": "ID"}}
}

func collectPorts(s collect.Settings) []port {
	ports := []port{
		{"_settings", s},
		{"item", collect.InMessage{Total: 1}},
		{"response", collect.OutMessage{Items: []any{}}},
	}
	if s.EnableErrorPort {
		ports = append(ports, port{"error", collect.ErrorMessage{}})
	}
	return ports
}

// cases lists every component state the parity test compares. Names are `<component>/<state>`.
var cases = []schemaCase{
	{"async/default", "async", []port{
		{"_settings", async.Settings{MaxConcurrency: 100}},
		{"in", async.InMessage{}},
		{"out", async.OutMessage{}},
	}},
	{"delay/default", "delay", []port{
		{"in", delay.Request{Delay: 1000}},
		{"out", delay.OutMessage{}},
	}},
	{"transform/default", "transform", []port{
		{"in", modify.InMessage{}},
		{"out", modify.OutMessage{}},
	}},
	{"array_split/default", "array_split", []port{
		{"in", split.InMessage{}},
		{"out", split.OutMessage{}},
	}},
	{"signal/default", "signal", []port{
		{"_settings", signal.Settings{}},
		{"out", new(signal.Context)},
		{"_control", signal.Control{}},
	}},
	{"signal/context", "signal", []port{
		{"_settings", signal.Settings{Context: signalContext}},
		{"out", new(signal.Context)},
		{"_control", signal.Control{Context: signalContext}},
	}},
	{"signal/list-context", "signal", []port{
		{"_settings", signal.Settings{Context: []interface{}{map[string]interface{}{"k": "v"}}}},
		{"out", new(signal.Context)},
		{"_control", signal.Control{Context: []interface{}{map[string]interface{}{"k": "v"}}}},
	}},
	{"signal/scalar-context", "signal", []port{
		{"_settings", signal.Settings{Context: "hello"}},
		{"out", new(signal.Context)},
		{"_control", signal.Control{Context: "hello"}},
	}},
	{"ticker/stopped", "ticker", []port{
		{"_settings", ticker.Settings{Delay: 1000}},
		{"out", new(ticker.Context)},
		{"_control", ticker.ControlStopped{Status: "Not running", Start: true}},
	}},
	{"ticker/running", "ticker", []port{
		{"_settings", ticker.Settings{Delay: 60000}},
		{"out", new(ticker.Context)},
		{"_control", ticker.ControlRunning{Status: "Running", Stop: true}},
	}},
	{"cron/stopped", "cron", []port{
		{"_settings", cron.Settings{Schedule: "*/1 * * * *"}},
		{"out", new(cron.Context)},
		{"_control", cron.ControlStopped{Schedule: "*/1 * * * *", Status: "Not running", Start: true}},
	}},
	{"cron/running", "cron", []port{
		{"_settings", cron.Settings{Schedule: "*/1 * * * *"}},
		{"out", new(cron.Context)},
		{"_control", cron.ControlRunning{Schedule: "*/1 * * * *", NextRun: "2030-01-01T00:00:00Z", Status: "Running", Stop: true}},
	}},
	{"debug/default", "debug", []port{
		{"in", debug.InMessage{}},
		{"_control", debug.Control{}},
		{"_settings", debug.Settings{}},
	}},
	{"counter/default", "counter", []port{
		{"_settings", counter.Settings{Step: 1}},
		{"in", counter.InMessage{}},
		{"out", counter.OutMessage{}},
		{"_control", counter.Control{Reset: true}},
	}},
	{"router/default", "router", routerPorts([]string{"A", "B"}, false)},
	{"router/default-port", "router", routerPorts([]string{"GET", "POST"}, true)},
	{"http_server/default", "http_server", serverPorts(false, false)},
	{"http_server/all-ports", "http_server", serverPorts(true, true)},
	{"http_request/default", "http_request", clientPorts(false)},
	{"http_request/error-port", "http_request", clientPorts(true)},
	{"js_eval/default", "js_eval", jsEvalPorts(jsEvalDefaults())},
	{"js_eval/error-port", "js_eval", jsEvalPorts(jsEvalErrorPort())},
	{"js_eval/examples", "js_eval", jsEvalPorts(jsEvalExamples())},
	{"array_get/default", "array_get", arrayGetPorts(false)},
	{"array_get/error-port", "array_get", arrayGetPorts(true)},
	{"array_filter/default", "array_filter", arrayFilterPorts(arrayfilter.Settings{})},
	{"array_filter/error-port", "array_filter", arrayFilterPorts(arrayfilter.Settings{EnableErrorPort: true, SkipUnevaluable: true})},
	{"group_by/default", "group_by", []port{
		{"in", groupby.InMessage{}},
		{"out", groupby.OutMessage{Groups: []groupby.Group{{Key: "group-a", Count: 2, Items: []groupby.Item{}}, {Key: "group-b", Count: 1, Items: []groupby.Item{}}}, Total: 3}},
	}},
	{"retry/default", "retry", retryPorts(retry.Settings{MaxAttempts: 5, InitialDelayMs: 500, MaxDelayMs: 30000, Backoff: "exponential", Jitter: true})},
	{"retry/settings", "retry", retryPorts(retry.Settings{MaxAttempts: 3, InitialDelayMs: 10, MaxDelayMs: 100, Backoff: "linear"})},
	{"display/default", "display", displayPorts("", "")},
	{"display/authored", "display", displayPorts("### Pod Watch\n\nWhat this agent does.", "### Pod Watch\n\nWhat this agent does.")},
	{"display/shown", "display", displayPorts("placeholder", "3 pods unhealthy")},
	{"inject/default", "inject", injectPorts(inject.Settings{})},
	{"inject/config-required", "inject", injectPorts(inject.Settings{ConfigRequired: true})},
	{"kv/default", "kv", kvPorts(kvDefaults(), 0)},
	{"kv/document", "kv", kvPorts(kv.Settings{PrimaryKey: "url", MaxRecords: 100, EnableStoreAck: true, Document: kv.Document{"url": "", "status": "UP"}}, 0)},
	{"kv/records", "kv", kvPorts(kvDefaults(), 2)},
	{"collect/default", "collect", collectPorts(collect.Settings{TimeoutSeconds: 300, MaxGroups: 100})},
	{"collect/error-port", "collect", collectPorts(collect.Settings{EnableErrorPort: true, TimeoutSeconds: 60, MaxGroups: 100})},
}

// portType is the Go type a port's data decodes into (reflect.TypeOf of its Configuration, as the
// runner does), for every component and port of the cases above.
func portType(component, portName string) (reflect.Type, bool) {
	for _, c := range cases {
		if c.Component != component {
			continue
		}
		for _, p := range c.Ports {
			if p.Name == portName {
				v, _ := p.configuration()
				return reflect.TypeOf(v), true
			}
		}
	}
	return nil, false
}
