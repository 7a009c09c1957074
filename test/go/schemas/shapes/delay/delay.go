// Package delay declares the port types of common-module `delay`.
package delay

type Context any

type Request struct {
	Context Context `json:"context" configurable:"true" title:"Context" description:"Arbitrary message to be delayed"`
	Delay   int     `json:"delay" required:"true" title:"Delay (ms)"`
}

type OutMessage struct {
	Context Context `json:"context" configurable:"true" title:"Context" description:"Passthrough — the message, unchanged"`
}
