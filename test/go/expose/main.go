// Command expose calls the Go SDK's resource manager (pkg/resource Manager.ExposePort and
// DisclosePort) once against a cluster, so tests can compare what the Go runtime writes to the
// release Service and Ingress with what tinyhost writes.
//
// Usage: expose -kubeconfig FILE -namespace NS -port N [-auto NAME] [-host H]... [-disclose]
// HOSTNAME must be the name of the release's pod, as in a module pod. Prints one JSON object on
// stdout: {"hostnames": [...]} after ExposePort, {} after DisclosePort, or {"error": "..."}.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"strings"

	"github.com/tiny-systems/module/pkg/resource"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

type hosts []string

func (h *hosts) String() string     { return strings.Join(*h, ",") }
func (h *hosts) Set(v string) error { *h = append(*h, v); return nil }

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file")
	namespace := flag.String("namespace", "", "namespace of the release")
	port := flag.Int("port", 0, "port number")
	auto := flag.String("auto", "", "autoHostName")
	disclose := flag.Bool("disclose", false, "call DisclosePort instead of ExposePort")
	var hostnames hosts
	flag.Var(&hostnames, "host", "hostname (repeatable)")
	flag.Parse()

	out := json.NewEncoder(os.Stdout)
	fail := func(err error) {
		_ = out.Encode(map[string]string{"error": err.Error()})
		os.Exit(0)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail(err)
	}
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: clientgoscheme.Scheme})
	if err != nil {
		fail(err)
	}
	m, err := resource.NewManagerFromClient(c, *namespace)
	if err != nil {
		fail(err)
	}
	ctx := context.Background()
	if *disclose {
		if err := m.DisclosePort(ctx, *port); err != nil {
			fail(err)
		}
		_ = out.Encode(map[string]string{})
		return
	}
	got, err := m.ExposePort(ctx, *auto, hostnames, *port)
	if err != nil {
		fail(err)
	}
	_ = out.Encode(map[string][]string{"hostnames": got})
}
