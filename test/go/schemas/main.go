// Command schemas shows what the Go SDK publishes and decodes for the port shapes of the Go
// components tinyhost's bundled components mirror (declared in ./shapes).
//
//	schemas schemas   prints {"<case>": {"<port>": {"schema": …, "configuration": …}}} for every
//	                  case of cases.go, the schema made by the SDK's own pkg/schema.CreateSchema and
//	                  marshalled as the runner's ReadStatus fills TinyNode.status.ports (a port's
//	                  authored Schema, when it has one, verbatim).
//	schemas decode    reads one JSON object a line on stdin, {"id", "component", "port", "data",
//	                  "path"}; decodes data into a fresh zero value of the port's Go type as the
//	                  runner does (path "edge", the default: the configuration is evaluated by
//	                  pkg/evaluator and JSON-encoded then decoded, runner.jsonEncodeDecode; path
//	                  "signal": the payload bytes decoded directly) with github.com/goccy/go-json,
//	                  the runner's JSON package. Writes {"id", "value"} (every field the component
//	                  sees, see view.go) or {"id", "error"} a line.
package main

import (
	"bufio"
	"fmt"
	"os"
	"reflect"

	"github.com/goccy/go-json"
	"github.com/tiny-systems/module/pkg/evaluator"
	"github.com/tiny-systems/module/pkg/schema"
)

func printSchemas() error {
	out := map[string]map[string]map[string]json.RawMessage{}
	for _, c := range cases {
		ports := map[string]map[string]json.RawMessage{}
		for _, p := range c.Ports {
			// An authored schema is published verbatim (the runner's ReadStatus: Port.Schema wins).
			value, authoredSchema := p.configuration()
			schemaJSON := []byte(authoredSchema)
			if authoredSchema == nil {
				sh, err := schema.CreateSchema(value)
				if err != nil {
					return fmt.Errorf("%s %s: create schema: %w", c.Name, p.Name, err)
				}
				if schemaJSON, err = sh.MarshalJSON(); err != nil {
					return fmt.Errorf("%s %s: marshal schema: %w", c.Name, p.Name, err)
				}
			}
			confJSON, err := json.Marshal(value)
			if err != nil {
				return fmt.Errorf("%s %s: marshal configuration: %w", c.Name, p.Name, err)
			}
			ports[p.Name] = map[string]json.RawMessage{"schema": schemaJSON, "configuration": confJSON}
		}
		out[c.Name] = ports
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

type decodeInput struct {
	ID        string          `json:"id"`
	Component string          `json:"component"`
	Port      string          `json:"port"`
	Data      json.RawMessage `json:"data"`
	Path      string          `json:"path"`
}

type decodeOutput struct {
	ID    string      `json:"id"`
	Value interface{} `json:"value,omitempty"`
	Null  bool        `json:"null,omitempty"`
	Error string      `json:"error,omitempty"`
}

func decode(in decodeInput) (out decodeOutput) {
	out.ID = in.ID
	defer func() {
		if r := recover(); r != nil {
			out = decodeOutput{ID: in.ID, Error: fmt.Sprintf("panic: %v", r)}
		}
	}()
	t, ok := portType(in.Component, in.Port)
	if !ok {
		return decodeOutput{ID: in.ID, Error: fmt.Sprintf("no port %s of %s in cases.go", in.Port, in.Component)}
	}
	target := reflect.New(t)
	switch in.Path {
	case "signal":
		if err := json.Unmarshal(in.Data, target.Interface()); err != nil {
			return decodeOutput{ID: in.ID, Error: err.Error()}
		}
	case "", "edge":
		evaluated, err := evaluator.NewEvaluator(nil).Eval(in.Data)
		if err != nil {
			return decodeOutput{ID: in.ID, Error: "eval port edge settings config: " + err.Error()}
		}
		b, err := json.Marshal(evaluated)
		if err == nil {
			err = json.Unmarshal(b, target.Interface())
		}
		if err != nil {
			return decodeOutput{ID: in.ID, Error: "map decode from config map to port input type: " + err.Error()}
		}
	default:
		return decodeOutput{ID: in.ID, Error: "unknown path " + in.Path}
	}
	out.Value = view(target.Elem())
	out.Null = out.Value == nil
	return out
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: schemas schemas | schemas decode < lines")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "schemas":
		if err := printSchemas(); err != nil {
			fmt.Fprintln(os.Stderr, "schemas:", err)
			os.Exit(1)
		}
	case "decode":
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		enc := json.NewEncoder(os.Stdout)
		enc.SetEscapeHTML(false)
		for sc.Scan() {
			var in decodeInput
			if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
				fmt.Fprintf(os.Stderr, "schemas: bad input line: %v\n", err)
				os.Exit(2)
			}
			if err := enc.Encode(decode(in)); err != nil {
				fmt.Fprintln(os.Stderr, "schemas:", err)
				os.Exit(2)
			}
		}
	default:
		fmt.Fprintln(os.Stderr, "usage: schemas schemas | schemas decode < lines")
		os.Exit(2)
	}
}
