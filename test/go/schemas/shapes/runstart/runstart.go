// Package runstart declares the port types of common-module `runstart` (component `run_start`).
package runstart

type Context any

type Request struct {
	Context Context `json:"context" configurable:"true" title:"Context" description:"Payload to send into the run"`
}

type Started struct {
	Context Context `json:"context,omitempty" configurable:"true" title:"Context"`
	RunID   string  `json:"runID" title:"Run ID" description:"The run's id — check it with Run Status"`
}

type OutMessage struct {
	Context Context `json:"context" configurable:"true" title:"Context" description:"Passthrough — the message, unchanged"`
}
