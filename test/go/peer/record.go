package main

// What the peer's components saw, as one JSON line per call in the file named by
// PEER_RECORD_FILE (nothing is written when it is unset). The fields are the shared contract with
// the tinyhost twins (test/fixtures/go-peer-components/record.ts) and test/support/go-peer.ts.

import (
	"context"
	"encoding/json"
	"os"
	"sync"

	"github.com/tiny-systems/module/module"
	perrors "github.com/tiny-systems/module/pkg/errors"
	"go.opentelemetry.io/otel/trace"
)

type record struct {
	Runtime   string          `json:"runtime"`
	Pod       string          `json:"pod"`
	Node      string          `json:"node"`
	Component string          `json:"component"`
	Port      string          `json:"port"`
	Data      any             `json:"data"`
	Leader    *bool           `json:"leader,omitempty"`
	Reply     json.RawMessage `json:"reply,omitempty"`
	Error     string          `json:"error,omitempty"`
	Code      string          `json:"code,omitempty"`
	TraceID   string          `json:"traceId,omitempty"`
	RunID     string          `json:"runId,omitempty"`
}

func newRecord(ctx context.Context, node, component, port string, data any) *record {
	r := &record{Runtime: "go", Pod: os.Getenv("HOSTNAME"), Node: node, Component: component, Port: port, Data: data}
	if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
		r.TraceID = sc.TraceID().String()
	}
	if id, ok := module.RunID(ctx); ok {
		r.RunID = id
	}
	return r
}

// replyJSON is the reply a component got from its output: a remote module's reply arrives as raw
// JSON bytes, a same-module reply as a Go value; nil stays absent.
func replyJSON(v any) json.RawMessage {
	switch b := v.(type) {
	case nil:
		return nil
	case []byte:
		if len(b) == 0 {
			return nil
		}
		if json.Valid(b) {
			return json.RawMessage(b)
		}
		q, _ := json.Marshal(string(b))
		return q
	default:
		out, err := json.Marshal(v)
		if err != nil {
			q, _ := json.Marshal(err.Error())
			return q
		}
		return out
	}
}

// setError records err's text and its CodedError code (what the SDK's wire decode made of a reply).
func (r *record) setError(err error) {
	r.Error = err.Error()
	r.Code = perrors.ErrorCode(err)
}

var recordMu sync.Mutex

func (r *record) write() {
	path := os.Getenv("PEER_RECORD_FILE")
	if path == "" {
		return
	}
	line, err := json.Marshal(r)
	if err != nil {
		line, _ = json.Marshal(map[string]string{"runtime": "go", "node": r.Node, "error": "record: " + err.Error()})
	}
	recordMu.Lock()
	defer recordMu.Unlock()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write(append(line, '\n'))
}
