// Package runstatus declares the port types of common-module `runstatus` (component `run_status`).
package runstatus

import "time"

type Context any

type Request struct {
	Context Context `json:"context" configurable:"true" title:"Context"`
	RunID   string  `json:"runID" required:"true" title:"Run ID" description:"The run id (returned by Start Run & Reply)"`
}

type Step struct {
	StepKey     string    `json:"stepKey" title:"Step Key"`
	Node        string    `json:"node" title:"Node"`
	Status      string    `json:"status" title:"Status"`
	Error       string    `json:"error,omitempty" title:"Error"`
	CompletedAt time.Time `json:"completedAt" title:"Completed At"`
}

type Response struct {
	Context      Context `json:"context,omitempty" configurable:"true" title:"Context"`
	RunID        string  `json:"runID" title:"Run ID"`
	Found        bool    `json:"found" title:"Found"`
	Complete     bool    `json:"complete" title:"Complete"`
	Failed       bool    `json:"failed" title:"Failed"`
	PendingSteps int     `json:"pendingSteps" title:"Pending Steps"`
	Steps        []Step  `json:"steps,omitempty" title:"Steps"`
}
