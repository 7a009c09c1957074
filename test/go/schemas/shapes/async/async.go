// Package async declares the port types of common-module `async`.
package async

type Context any

type Settings struct {
	MaxConcurrency int `json:"maxConcurrency" title:"Max concurrency" description:"Background emits in flight before new messages are passed on synchronously; 0 means 100"`
}

type InMessage struct {
	Context Context `json:"context" configurable:"true" required:"true" title:"Context" description:"Passed on to Out in the background"`
}

type OutMessage struct {
	Context Context `json:"context" configurable:"true" title:"Context"`
}
