// Package debug declares the port types of common-module `debug`.
package debug

type Context any

type Settings struct {
	Context Context `json:"context" configurable:"true" required:"true" title:"Context" description:"Component message"`
}

// InMessage is a map: debug shows everything mapped into it.
type InMessage map[string]interface{}

type Control struct {
	Context Context `json:"context" readonly:"true" required:"true" title:"Context"`
}
