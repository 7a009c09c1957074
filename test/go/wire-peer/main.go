// Command wire-peer exercises the durable-run and RPC wire of the Go SDK against tinyhost, so the
// tests compare with the SDK itself rather than with our reading of it.
//
//	wire-peer rpc <natsURL> <module> <component> <json> [timeoutMs]
//	    calls wire.PublishRPC and prints {"data": <answer JSON or null>} or {"error": "<text>"}.
//	wire-peer stepkeys
//	    reads lines {"runId","stepKey","edges":[...]} and prints {"keys":[...]}: the step keys
//	    module.NewRun(runId, stepKey).NextStepKey(edge) gives for each edge in order.
//	wire-peer record
//	    reads one JSON step record per line, decodes it into module.StepRecord and prints
//	    {"record": <Go's re-encoding>} or {"error": "<decode error>"}.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/tiny-systems/module/module"
	"github.com/tiny-systems/module/pkg/wire"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: wire-peer rpc|stepkeys|record ...")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "rpc":
		rpc(os.Args[2:])
	case "stepkeys":
		lines(func(line []byte) any {
			var in struct {
				RunID   string   `json:"runId"`
				StepKey string   `json:"stepKey"`
				Edges   []string `json:"edges"`
			}
			if err := json.Unmarshal(line, &in); err != nil {
				return map[string]string{"error": err.Error()}
			}
			run := module.NewRun(in.RunID, in.StepKey)
			keys := make([]string, 0, len(in.Edges))
			for _, e := range in.Edges {
				keys = append(keys, run.NextStepKey(e))
			}
			return map[string]any{"keys": keys}
		})
	case "record":
		lines(func(line []byte) any {
			var rec module.StepRecord
			if err := json.Unmarshal(line, &rec); err != nil {
				return map[string]string{"error": err.Error()}
			}
			return map[string]any{"record": rec}
		})
	default:
		fmt.Fprintf(os.Stderr, "unknown command %q\n", os.Args[1])
		os.Exit(2)
	}
}

func rpc(args []string) {
	if len(args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: wire-peer rpc <natsURL> <module> <component> <json> [timeoutMs]")
		os.Exit(2)
	}
	timeout := 30 * time.Second
	if len(args) > 4 {
		ms, err := strconv.Atoi(args[4])
		if err != nil {
			fmt.Fprintln(os.Stderr, "timeoutMs:", err)
			os.Exit(2)
		}
		timeout = time.Duration(ms) * time.Millisecond
	}
	nc, err := nats.Connect(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "connect:", err)
		os.Exit(1)
	}
	defer nc.Close()
	data, err := wire.PublishRPC(context.Background(), nc, args[1], args[2], []byte(args[3]), wire.RPCOptions{Timeout: timeout})
	out := map[string]any{}
	if err != nil {
		out["error"] = err.Error()
	} else if data == nil {
		out["data"] = nil
	} else {
		out["data"] = json.RawMessage(data)
	}
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
}

func lines(f func([]byte) any) {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for sc.Scan() {
		b, _ := json.Marshal(f(sc.Bytes()))
		w.Write(b)
		w.WriteByte('\n')
	}
}
