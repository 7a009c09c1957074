// Command podserver is the real-node tests' pod (test/integration/real-node.test.ts): a static
// HTTP server that reports which pod answered and whether it has been told to stop.
//
//	GET /healthz  200 while the process runs (liveness)
//	GET /readyz   200 until SIGTERM, then 503 (readiness)
//	GET /resolve?name=N  {"addrs": [...]} from the pod's resolver (the kubelet's resolv.conf: CoreDNS)
//	GET /         {"pod": <hostname>, "terminating": bool, "sigtermAgoMs": <ms since SIGTERM or -1>}
//
// On SIGTERM it keeps serving for DRAIN_SECONDS (default 3) and then exits 0, so a test sees that
// the signal arrived and that the kubelet waited for the process instead of killing it.
package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	drain := 3 * time.Second
	if v := os.Getenv("DRAIN_SECONDS"); v != "" {
		s, err := strconv.Atoi(v)
		if err != nil || s < 0 {
			fmt.Fprintf(os.Stderr, "podserver: DRAIN_SECONDS=%q is not a whole number of seconds\n", v)
			os.Exit(2)
		}
		drain = time.Duration(s) * time.Second
	}
	host, _ := os.Hostname()
	var sigtermAt atomic.Int64

	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if sigtermAt.Load() != 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte("terminating"))
			return
		}
		w.Write([]byte("ok"))
	})
	mux.HandleFunc("/resolve", func(w http.ResponseWriter, r *http.Request) {
		addrs, err := net.DefaultResolver.LookupHost(r.Context(), r.URL.Query().Get("name"))
		w.Header().Set("content-type", "application/json")
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			json.NewEncoder(w).Encode(map[string]any{"error": err.Error()})
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"addrs": addrs})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		at := sigtermAt.Load()
		ago := int64(-1)
		if at != 0 {
			ago = time.Now().UnixMilli() - at
		}
		w.Header().Set("content-type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"pod": host, "terminating": at != 0, "sigtermAgoMs": ago})
	})

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-sigs
		sigtermAt.Store(time.Now().UnixMilli())
		fmt.Printf("podserver: SIGTERM, serving %s more\n", drain)
		time.Sleep(drain)
		os.Exit(0)
	}()
	fmt.Printf("podserver: %s listening on :%s\n", host, port)
	if err := http.ListenAndServe(":"+port, mux); err != nil {
		fmt.Fprintln(os.Stderr, "podserver:", err)
		os.Exit(1)
	}
}
