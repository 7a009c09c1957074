package main

// The peer's durable-run components, the Go twins of test/fixtures/durable-components (same
// names and port shapes, so test/support/durable-flow.ts can put any node of its flow here):
//
//	durable_step  in {trail, holdFirstMs} → journals start, holds the FIRST execution of a run
//	              for holdFirstMs (so a test can kill the replica running it), journals done,
//	              emits {trail + this node} on out
//	durable_door  in {trail} → begins a run whose hop to this node's `reply` port is delivered to
//	              an inbox of this process (module.BeginRunWithReply), emits the first hop on out,
//	              waits for the reply and answers its caller {runId, reply}
//
// Both journal to the file named by DURABLE_JOURNAL, in the format of
// test/support/durable-journal.ts ({pod, pid, node, runId, event} a line), shared with the
// tinyhost processes of a test.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/tiny-systems/module/module"
	"github.com/tiny-systems/module/registry"
)

// TrailMsg is what the durable components emit: the nodes the run went through.
type TrailMsg struct {
	Trail []string `json:"trail" title:"Trail"`
}

// StepIn is durable_step's input.
type StepIn struct {
	Trail       []string `json:"trail" title:"Trail"`
	HoldFirstMs int      `json:"holdFirstMs" title:"Hold first execution (ms)"`
}

// DoorReply is durable_door's answer to its caller.
type DoorReply struct {
	RunID string          `json:"runId"`
	Reply json.RawMessage `json:"reply"`
}

type journalEvent struct {
	Pod   string `json:"pod"`
	Pid   int    `json:"pid"`
	Node  string `json:"node"`
	RunID string `json:"runId"`
	Event string `json:"event"`
}

var journalMu sync.Mutex

func journal(node, runID, event string) {
	path := os.Getenv("DURABLE_JOURNAL")
	if path == "" {
		return
	}
	line, _ := json.Marshal(journalEvent{Pod: os.Getenv("HOSTNAME"), Pid: os.Getpid(), Node: node, RunID: runID, Event: event})
	journalMu.Lock()
	defer journalMu.Unlock()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write(append(line, '\n'))
}

// journaled reports whether any process journaled `event` for node and run.
func journaled(node, runID, event string) bool {
	f, err := os.Open(os.Getenv("DURABLE_JOURNAL"))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e journalEvent
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Node == node && e.RunID == runID && e.Event == event {
			return true
		}
	}
	return false
}

// DurableStep is one step of the durable test flow.
type DurableStep struct{ module.Base }

func (c *DurableStep) Instance() module.Component { return &DurableStep{} }
func (c *DurableStep) GetInfo() module.ComponentInfo {
	return module.ComponentInfo{Name: "durable_step", Description: "Durable step", Info: "journals its calls, appends itself to the trail", Tags: []string{"test"}}
}
func (c *DurableStep) Ports() []module.Port {
	return []module.Port{
		{Name: "in", Label: "In", Configuration: StepIn{Trail: []string{}}, Position: module.Left},
		{Name: "out", Label: "Out", Source: true, Configuration: TrailMsg{}, Position: module.Right},
	}
}
func (c *DurableStep) Handle(ctx context.Context, output module.Handler, port string, msg any) module.Result {
	in, ok := msg.(StepIn)
	if !ok {
		return unexpected("durable_step", port, msg)
	}
	node := c.Identity().NodeName
	runID, _ := module.RunID(ctx)
	// Held only when no process started this step of this run before (the first delivery).
	first := !journaled(node, runID, "start")
	journal(node, runID, "start")
	if in.HoldFirstMs > 0 && first {
		select {
		case <-time.After(time.Duration(in.HoldFirstMs) * time.Millisecond):
		case <-ctx.Done():
			return module.Fail(ctx.Err())
		}
	}
	journal(node, runID, "done")
	trail := append(append([]string{}, in.Trail...), node)
	return output(ctx, "out", TrailMsg{Trail: trail})
}

// DurableDoor is the synchronous front door over a durable run.
type DurableDoor struct{ module.Base }

func (c *DurableDoor) Instance() module.Component { return &DurableDoor{} }
func (c *DurableDoor) GetInfo() module.ComponentInfo {
	return module.ComponentInfo{Name: "durable_door", Description: "Durable door", Info: "begins a run and waits for its reply", Tags: []string{"test"}}
}
func (c *DurableDoor) Ports() []module.Port {
	return []module.Port{
		{Name: "in", Label: "In", Configuration: TrailMsg{Trail: []string{}}, Position: module.Left},
		{Name: "reply", Label: "Reply", Configuration: TrailMsg{}, Position: module.Left},
		{Name: "out", Label: "Out", Source: true, Configuration: TrailMsg{}, Position: module.Right},
	}
}

var (
	doorConnMu sync.Mutex
	doorConn   *nats.Conn
)

// replyConn is the door's own connection to the broker (TINY_NATS_URL), where it opens the inbox
// the run's reply hop is published to.
func replyConn() (*nats.Conn, error) {
	doorConnMu.Lock()
	defer doorConnMu.Unlock()
	if doorConn != nil && !doorConn.IsClosed() {
		return doorConn, nil
	}
	nc, err := nats.Connect(os.Getenv("TINY_NATS_URL"), nats.Name("go-peer-durable-door"))
	if err != nil {
		return nil, err
	}
	doorConn = nc
	return nc, nil
}

func (c *DurableDoor) Handle(ctx context.Context, output module.Handler, port string, msg any) module.Result {
	in, ok := msg.(TrailMsg)
	if !ok {
		return unexpected("durable_door", port, msg)
	}
	// A hop to `reply` outside a run with a reply (nobody waits for it) ends the chain here.
	if port == "reply" {
		return module.Ok(in)
	}
	nc, err := replyConn()
	if err != nil {
		return module.Fail(fmt.Errorf("durable_door: connect: %w", err))
	}
	inbox := nats.NewInbox()
	sub, err := nc.SubscribeSync(inbox)
	if err != nil {
		return module.Fail(fmt.Errorf("durable_door: subscribe: %w", err))
	}
	defer func() { _ = sub.Unsubscribe() }()
	if err := nc.Flush(); err != nil {
		return module.Fail(fmt.Errorf("durable_door: flush: %w", err))
	}
	timeout := 120 * time.Second
	if ms, err := strconv.Atoi(os.Getenv("DURABLE_REPLY_TIMEOUT_MS")); err == nil && ms > 0 {
		timeout = time.Duration(ms) * time.Millisecond
	}
	deadline := time.Now().Add(timeout)
	node := c.Identity().NodeName
	runCtx, runID := module.BeginRunWithReply(ctx, inbox, node+":reply", deadline.UnixMilli())
	journal(node, runID, "start")
	if res := output(runCtx, "out", TrailMsg{Trail: in.Trail}); res.Err() != nil {
		return res
	}
	waitCtx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	reply, err := sub.NextMsgWithContext(waitCtx)
	journal(node, runID, "done")
	if err != nil {
		return module.Fail(fmt.Errorf("durable_door: no reply for run %s: %w", runID, err))
	}
	return module.Ok(DoorReply{RunID: runID, Reply: json.RawMessage(reply.Data)})
}

func init() {
	registry.Register(&DurableStep{})
	registry.Register(&DurableDoor{})
}
