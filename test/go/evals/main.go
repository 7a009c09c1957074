// Command evals judges eval specs with the Go SDK's own pkg/evals: one JSON request per stdin
// line, {"path", "yaml", "observed": [evals.Observed]}, answered by one JSON line on stdout:
// the specs as evals.Parse and ExpandEnv read them, each with the failures evals.Check gives
// for the observed run, or the error Parse/ExpandEnv returned. tinyhost's `eval` command is
// tested against it (test/integration/eval-oracle.test.ts).
package main

import (
	"bufio"
	"encoding/json"
	"os"
	"time"

	"github.com/tiny-systems/module/pkg/evals"
)

type request struct {
	Path     string         `json:"path"`
	YAML     string         `json:"yaml"`
	Observed evals.Observed `json:"observed"`
}

type verdict struct {
	Name      string                 `json:"name"`
	Node      string                 `json:"node"`
	Port      string                 `json:"port"`
	Data      map[string]interface{} `json:"data"`
	TimeoutMs int64                  `json:"timeoutMs"`
	Failures  []string               `json:"failures"`
}

type response struct {
	Error string    `json:"error,omitempty"`
	Specs []verdict `json:"specs"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 0, 1<<20), 64<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			_ = out.Encode(response{Error: "bad request: " + err.Error()})
			continue
		}
		_ = out.Encode(judge(req))
	}
}

func judge(req request) response {
	specs, err := evals.Parse(req.Path, []byte(req.YAML))
	if err != nil {
		return response{Error: err.Error()}
	}
	res := response{Specs: []verdict{}}
	for i := range specs {
		if err := specs[i].ExpandEnv(); err != nil {
			return response{Error: err.Error()}
		}
		s := specs[i]
		v := verdict{Name: s.Name, Node: s.Trigger.Node, Port: s.Trigger.Port, Data: s.Trigger.Data, TimeoutMs: s.Timeout.Or(60*time.Second).Milliseconds(), Failures: []string{}}
		for _, f := range evals.Check(s, req.Observed) {
			v.Failures = append(v.Failures, f.String())
		}
		res.Specs = append(res.Specs, v)
	}
	return res
}
