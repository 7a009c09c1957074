// Package delay declares the port types of common-module `delay`.
package delay

type Context any

type Request struct {
	Context Context `json:"context" configurable:"true" title:"Context" description:"Message passed on after the wait"`
	Delay   int     `json:"delay" required:"true" title:"Delay (ms)" description:"How long to wait before passing the message on, in milliseconds"`
}

type OutMessage struct {
	Context Context `json:"context" configurable:"true" title:"Context"`
}
