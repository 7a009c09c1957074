// Package async declares the port types of common-module `async`.
package async

type Context any

type InMessage struct {
	Context Context `json:"context" configurable:"true" required:"true" title:"Context" description:"Arbitrary message to be modified"`
}

type Settings struct {
	MaxConcurrency int `json:"maxConcurrency" title:"Max Concurrency" description:"Maximum number of concurrent async operations. 0 means use default (100)."`
}

type OutMessage struct {
	Context Context `json:"context" configurable:"true" title:"Context" description:"Passthrough — the message, unchanged"`
}
