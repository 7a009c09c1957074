// Package signal declares the port types of common-module `signal` (fire-and-forget variant).
package signal

type Context any

type Settings struct {
	Context Context `json:"context" required:"true" configurable:"true" title:"Context" description:"Arbitrary message to send"`
}

type Control struct {
	Context Context `json:"context" required:"true" configurable:"true" title:"Context" description:"Message to send"`
	Send    bool    `json:"send" format:"button" title:"Send" required:"true" colSpan:"col-span-6"`
}
