package main

// double: the peer's agent tool (module.AgentTool, SDK module/agent_tool.go), the Go twin of
// test/fixtures/go-peer/components/double.ts: in {n} → emits {n: 2n, calls} on out, where calls
// counts the calls this instance served (1 for every RPC call: the dispatcher makes a fresh
// instance per call). A negative n fails with a coded error, so an error answer can be compared.

import (
	"context"
	"fmt"

	"github.com/tiny-systems/module/module"
	perrors "github.com/tiny-systems/module/pkg/errors"
	"github.com/tiny-systems/module/registry"
)

// DoubleIn is the tool's input.
type DoubleIn struct {
	N int `json:"n" required:"true" title:"N" description:"The number to double"`
}

// DoubleOut is the tool's answer.
type DoubleOut struct {
	N     int `json:"n" title:"N"`
	Calls int `json:"calls" title:"Calls"`
}

// Double is an agent tool.
type Double struct {
	module.Base
	calls int
}

func (c *Double) Instance() module.Component { return &Double{} }
func (c *Double) GetInfo() module.ComponentInfo {
	return module.ComponentInfo{Name: "double", Description: "Double", Info: "doubles n", Tags: []string{"test"}}
}
func (c *Double) AgentTool() module.AgentToolInfo {
	return module.AgentToolInfo{Description: "Doubles a number. Input {n}; returns {n: 2n}."}
}
func (c *Double) Ports() []module.Port {
	return []module.Port{
		{Name: "in", Label: "In", Configuration: DoubleIn{N: 1}, Position: module.Left},
		{Name: "out", Label: "Out", Source: true, Configuration: DoubleOut{}, Position: module.Right},
	}
}
func (c *Double) Handle(ctx context.Context, output module.Handler, port string, msg any) module.Result {
	in, ok := msg.(DoubleIn)
	if !ok {
		return unexpected("double", port, msg)
	}
	if in.N < 0 {
		return module.Fail(perrors.NonRetryable("E_NEGATIVE", fmt.Errorf("double: n must not be negative, got %d", in.N)))
	}
	c.calls++
	return output(ctx, "out", DoubleOut{N: 2 * in.N, Calls: c.calls})
}

var _ module.AgentTool = (*Double)(nil)

func init() {
	registry.Register(&Double{})
}
