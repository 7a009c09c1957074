// Package signal declares the port types of common-module `signal` (fire-and-forget: one Send button).
package signal

type Context any

type Settings struct {
	Context Context `json:"context" required:"true" configurable:"true" title:"Context" description:"Arbitrary message to send"`
}

type Control struct {
	Context Context `json:"context" required:"true" configurable:"true" title:"Context"`
	Send    bool    `json:"send" format:"button" title:"Send" required:"true"`
}
