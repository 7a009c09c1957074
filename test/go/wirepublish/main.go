// Command wirepublish sends one message with the Go SDK's own wire.Publish (pkg/wire/publish.go),
// the call the platform's send_signal makes, so tests can compare what `tinyhost send` puts on the
// wire with what Go puts there, and see what Go returns as the reply.
//
//	wirepublish -url nats://127.0.0.1:4222 -node <name> -port <port> -data '<json>' [-wait] [-timeout 5s]
//
// Prints one JSON line: {"reply": "<reply body>" | null, "error": "<text>" | null}.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/tiny-systems/module/pkg/wire"
)

type answer struct {
	Reply *string `json:"reply"`
	Error *string `json:"error"`
}

func main() {
	url := flag.String("url", nats.DefaultURL, "NATS URL")
	node := flag.String("node", "", "target node's full name")
	port := flag.String("port", "", "target port")
	data := flag.String("data", "null", "JSON payload")
	wait := flag.Bool("wait", false, "wait for the reply (Options.WaitForReply)")
	timeout := flag.Duration("timeout", 0, "Options.Timeout (0 = the SDK's 30 s)")
	flag.Parse()

	nc, err := nats.Connect(*url)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wirepublish: connect:", err)
		os.Exit(2)
	}
	defer nc.Close()

	reply, err := wire.Publish(context.Background(), nc, *node, *port, []byte(*data), wire.Options{
		From:         wire.FromSignal,
		WaitForReply: *wait,
		Timeout:      *timeout,
	})
	if !*wait {
		_ = nc.Flush()
	}
	var a answer
	if err != nil {
		s := err.Error()
		a.Error = &s
	} else if reply != nil {
		s := string(reply)
		a.Reply = &s
	}
	out, _ := json.Marshal(a)
	fmt.Println(string(out))
	time.Sleep(10 * time.Millisecond)
}
