// Command hooks is a Go module of our own with no components: the real Go SDK's command set
// (github.com/tiny-systems/module/cli, pinned in test/go/go.mod) behind a main shaped like the
// real modules' cmd/main.go, so a test can run the SDK's `pre-install` and `pre-delete` exactly
// as the tinysystems-operator chart's hook Jobs run a Go module's image, and compare exit codes
// and messages with tinyhost's.
//
//	hooks pre-install --name shop --namespace ns     (env RELEASE_NAMESPACE, KUBECONFIG)
//	hooks pre-delete  --name shop --namespace ns
//
// Like the modules' main, a cobra error (for example a required flag not given) is printed as
// "command execute error: …" on stdout and the process still exits 0: that is what a Go module
// image does when the chart runs it without --name.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/tiny-systems/module/cli"
)

func main() {
	root := &cobra.Command{
		Use:   "hooks",
		Short: "the Go SDK's hook commands (tinyhost test bed)",
		Run:   func(cmd *cobra.Command, _ []string) { _ = cmd.Help() },
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cli.RegisterCommands(root)
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Printf("command execute error: %v\n", err)
	}
}
