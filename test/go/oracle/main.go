// Command oracle evaluates port configurations with the Go SDK's own evaluator, exactly as the
// SDK's runner callback does (internal/scheduler/runner: ajson.Unmarshal of the payload, then
// evaluator.NewEvaluator with ajson.Eval + Unpack, errors collected per field).
//
// Input on stdin: one JSON object a line, {"id", "config", "payload"} where payload is the raw
// JSON text of the incoming message. Output on stdout: one JSON object a line,
// {"id", "result", "fieldErrors"} or {"id", "hopError"} or {"id", "panic"}.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"github.com/tiny-systems/ajson"
	"github.com/tiny-systems/module/pkg/evaluator"
)

type input struct {
	ID      string          `json:"id"`
	Config  json.RawMessage `json:"config"`
	Payload string          `json:"payload"`
}

type output struct {
	ID          string      `json:"id"`
	Result      interface{} `json:"result,omitempty"`
	FieldErrors []string    `json:"fieldErrors,omitempty"`
	HopError    string      `json:"hopError,omitempty"`
	Panic       string      `json:"panic,omitempty"`
}

func evaluate(in input) (out output) {
	out.ID = in.ID
	defer func() {
		if r := recover(); r != nil {
			out = output{ID: in.ID, Panic: fmt.Sprint(r)}
		}
	}()
	payload, err := ajson.Unmarshal([]byte(in.Payload))
	if err != nil {
		out.HopError = "ajson parse requestData payload error: " + err.Error()
		return out
	}
	fieldErrors := []string{}
	eval := evaluator.NewEvaluator(func(expression string) (interface{}, error) {
		if expression == "" {
			return nil, fmt.Errorf("expression is empty")
		}
		res, err := ajson.Eval(payload, expression)
		if err != nil {
			return nil, err
		}
		return res.Unpack()
	}).WithErrorCallback(func(expr string, err error) {
		fieldErrors = append(fieldErrors, expr+": "+err.Error())
	})
	result, err := eval.Eval(in.Config)
	if err != nil {
		out.HopError = "eval port edge settings config: " + err.Error()
		return out
	}
	// The runner then JSON-encodes the evaluated configuration to decode it into the port's type
	// (jsonEncodeDecode); a value JSON cannot carry (NaN, ±Inf) fails the hop there.
	encoded, err := json.Marshal(result)
	if err != nil {
		out.HopError = "map decode from config map to port input type: " + err.Error()
		return out
	}
	out.Result = json.RawMessage(encoded)
	out.FieldErrors = fieldErrors
	return out
}

func main() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	for sc.Scan() {
		var in input
		if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
			fmt.Fprintf(os.Stderr, "oracle: bad input line: %v\n", err)
			os.Exit(2)
		}
		if err := enc.Encode(evaluate(in)); err != nil {
			fmt.Fprintf(os.Stderr, "oracle: %v\n", err)
			os.Exit(2)
		}
	}
}
