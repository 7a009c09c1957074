package main

// The peer's components. Each one has a twin of the same name and port shapes for tinyhost in
// test/fixtures/go-peer-components/, so a test flow can put any node on either runtime:
//
//	relay       in {data} → emits {data} on out; returns what out returned (blocking chains)
//	echo        in {data} → returns {echo: data, runtime: "go", node}
//	sink        in {data} → records it, returns nothing
//	fail        in {data, code} → fails: a CodedError when code is set, else a plain error
//	controller  _control {send, data} → when the pod is the leader and send is true, emits
//	            {data} on out; records the leader flag the SDK put on the context either way
//
// and, in durable.go and tool.go, durable_step / durable_door (the durable test flow's nodes,
// twins of test/fixtures/durable-components) and the agent tool double.
//
// Every call writes one record (record.go).

import (
	"context"
	"errors"
	"fmt"

	"github.com/tiny-systems/module/module"
	perrors "github.com/tiny-systems/module/pkg/errors"
	"github.com/tiny-systems/module/pkg/utils"
	"github.com/tiny-systems/module/registry"
)

// DataMsg is the payload every business port carries.
type DataMsg struct {
	Data any `json:"data" configurable:"true" title:"Data"`
}

// FailMsg asks the fail component for an error; Code makes it a CodedError.
type FailMsg struct {
	Data any    `json:"data" configurable:"true" title:"Data"`
	Code string `json:"code" title:"Code"`
}

// EchoReply is echo's reply.
type EchoReply struct {
	Echo    any    `json:"echo"`
	Runtime string `json:"runtime"`
	Node    string `json:"node"`
}

// Control is the controller's _control message.
type Control struct {
	Send bool `json:"send" title:"Send"`
	Data any  `json:"data" title:"Data"`
}

func dataPorts(in any, withOut bool) []module.Port {
	ports := []module.Port{{Name: "in", Label: "In", Configuration: in, Position: module.Left}}
	if withOut {
		ports = append(ports, module.Port{Name: "out", Label: "Out", Source: true, Configuration: DataMsg{}, Position: module.Right})
	}
	return ports
}

func unexpected(component, port string, msg any) module.Result {
	return module.Fail(fmt.Errorf("%s: unexpected %T on port %q", component, msg, port))
}

// Relay passes data on and hands the downstream reply back up.
type Relay struct{ module.Base }

func (c *Relay) Instance() module.Component { return &Relay{} }
func (c *Relay) GetInfo() module.ComponentInfo {
	return module.ComponentInfo{Name: "relay", Description: "Relay", Info: "emits its input on out and returns the reply", Tags: []string{"test"}}
}
func (c *Relay) Ports() []module.Port { return dataPorts(DataMsg{}, true) }
func (c *Relay) Handle(ctx context.Context, output module.Handler, port string, msg any) module.Result {
	in, ok := msg.(DataMsg)
	if !ok {
		return unexpected("relay", port, msg)
	}
	res := output(ctx, "out", DataMsg{Data: in.Data})
	r := newRecord(ctx, c.Identity().NodeName, "relay", port, in.Data)
	if err := res.Err(); err != nil {
		r.setError(err)
	} else {
		r.Reply = replyJSON(res.Value())
	}
	r.write()
	return res
}

// Echo answers with what it got.
type Echo struct{ module.Base }

func (c *Echo) Instance() module.Component { return &Echo{} }
func (c *Echo) GetInfo() module.ComponentInfo {
	return module.ComponentInfo{Name: "echo", Description: "Echo", Info: "returns its input as the reply", Tags: []string{"test"}}
}
func (c *Echo) Ports() []module.Port { return dataPorts(DataMsg{}, false) }
func (c *Echo) Handle(ctx context.Context, _ module.Handler, port string, msg any) module.Result {
	in, ok := msg.(DataMsg)
	if !ok {
		return unexpected("echo", port, msg)
	}
	newRecord(ctx, c.Identity().NodeName, "echo", port, in.Data).write()
	return module.Ok(EchoReply{Echo: in.Data, Runtime: "go", Node: c.Identity().NodeName})
}

// Sink only records.
type Sink struct{ module.Base }

func (c *Sink) Instance() module.Component { return &Sink{} }
func (c *Sink) GetInfo() module.ComponentInfo {
	return module.ComponentInfo{Name: "sink", Description: "Sink", Info: "records what it receives", Tags: []string{"test"}}
}
func (c *Sink) Ports() []module.Port { return dataPorts(DataMsg{}, false) }
func (c *Sink) Handle(ctx context.Context, _ module.Handler, port string, msg any) module.Result {
	in, ok := msg.(DataMsg)
	if !ok {
		return unexpected("sink", port, msg)
	}
	newRecord(ctx, c.Identity().NodeName, "sink", port, in.Data).write()
	return module.Result{}
}

// Fail always fails.
type Fail struct{ module.Base }

func (c *Fail) Instance() module.Component { return &Fail{} }
func (c *Fail) GetInfo() module.ComponentInfo {
	return module.ComponentInfo{Name: "fail", Description: "Fail", Info: "returns an error (coded when code is set)", Tags: []string{"test"}}
}
func (c *Fail) Ports() []module.Port { return dataPorts(FailMsg{}, false) }
func (c *Fail) Handle(ctx context.Context, _ module.Handler, port string, msg any) module.Result {
	in, ok := msg.(FailMsg)
	if !ok {
		return unexpected("fail", port, msg)
	}
	newRecord(ctx, c.Identity().NodeName, "fail", port, in.Data).write()
	err := fmt.Errorf("fail: refused %v", in.Data)
	if in.Code != "" {
		return module.Fail(perrors.NonRetryable(in.Code, err))
	}
	return module.Fail(errors.New(err.Error()))
}

// Controller reacts to a control message only on the leader.
type Controller struct{ module.Base }

func (c *Controller) Instance() module.Component { return &Controller{} }
func (c *Controller) GetInfo() module.ComponentInfo {
	return module.ComponentInfo{Name: "controller", Description: "Controller", Info: "emits data on out when the leader gets _control {send: true}", Tags: []string{"test"}}
}
func (c *Controller) Ports() []module.Port {
	return []module.Port{
		{Name: "_control", Label: "Control", Configuration: Control{}, Position: module.Top},
		{Name: "out", Label: "Out", Source: true, Configuration: DataMsg{}, Position: module.Right},
	}
}
func (c *Controller) Handle(_ context.Context, _ module.Handler, port string, msg any) module.Result {
	return unexpected("controller", port, msg)
}

// OnControl is the SDK's ControlHandler capability: the runner calls it for `_control`.
func (c *Controller) OnControl(ctx context.Context, msg any) error {
	ctl, ok := msg.(Control)
	if !ok {
		return fmt.Errorf("controller: unexpected %T on _control", msg)
	}
	leader := utils.IsLeader(ctx)
	r := newRecord(ctx, c.Identity().NodeName, "controller", "_control", ctl.Data)
	r.Leader = &leader
	if leader && ctl.Send {
		res := c.Emit(ctx, "out", DataMsg{Data: ctl.Data})
		if err := res.Err(); err != nil {
			r.setError(err)
		}
	}
	r.write()
	return nil
}

func init() {
	registry.Register(&Relay{})
	registry.Register(&Echo{})
	registry.Register(&Sink{})
	registry.Register(&Fail{})
	registry.Register(&Controller{})
}
