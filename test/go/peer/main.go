// Command peer is a Go module of our own for the mixed-module integration tests: it registers a
// few small components with the real Go SDK (github.com/tiny-systems/module, pinned in
// test/go/go.mod) and runs the SDK's own `run` command, so a test can place it beside
// `tinyhost run` on one apiserver and one NATS and see what a real Go module does on the wire.
//
//	peer run --name gopeer --namespace ns --version 1.0.0 --kubeconfig k.yaml …
//
// Everything after `run` is the SDK's (cli/run.go): flags --name/--namespace/--version/
// --kubeconfig/--health-probe-bind-address/--metrics-bind-address/--grpc-server-bind-address,
// environment HOSTNAME, TINY_NATS_URL, TINY_NATS_TRANSPORT, OTLP_DSN, SELF_SERVICE_HOST.
//
// The components (components.go) write what they saw as JSON lines to the file named by
// PEER_RECORD_FILE (record.go); test/fixtures/go-peer-components/ holds the same components
// for tinyhost, so a flow can put each node on either runtime.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	"github.com/tiny-systems/module/cli"
)

func main() {
	// As the real modules' main.go: info unless asked otherwise (PEER_LOG_LEVEL=debug, warn, …).
	level := zerolog.InfoLevel
	if l, err := zerolog.ParseLevel(os.Getenv("PEER_LOG_LEVEL")); err == nil && os.Getenv("PEER_LOG_LEVEL") != "" {
		level = l
	}
	zerolog.SetGlobalLevel(level)
	root := &cobra.Command{
		Use:   "peer",
		Short: "tinyhost's Go peer module (test bed)",
		Run:   func(cmd *cobra.Command, _ []string) { _ = cmd.Help() },
	}
	// SIGTERM cancels the command context: the SDK's run drains and releases its Lease.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cli.RegisterCommands(root)
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "peer: %v\n", err)
		os.Exit(1)
	}
}
