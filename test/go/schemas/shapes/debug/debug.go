// Package debug declares the port types of common-module `debug`.
package debug

type Context any

type Settings struct {
	Context Context `json:"context" configurable:"true" required:"true" title:"Context" description:"Shown until the first message arrives"`
}

// InMessage is a map in the monorepo (its debug_test.go builds `InMessage{"context": …}`).
type InMessage map[string]interface{}

type Control struct {
	Context Context `json:"context" readonly:"true" required:"true" title:"Context"`
}
