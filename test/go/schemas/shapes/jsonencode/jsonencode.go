// Package jsonencode declares the port types of encoding-module `json/encode` (component
// `json_encode`), read from tiny-systems/modules encoding-module/components/json/encode/encode.go
// @cfbeb8a: Go type names, JSON names and schema tags as there.
package jsonencode

type Context any

type Settings struct {
	EnableErrorPort bool `json:"enableErrorPort" required:"true" title:"Enable Error Port" description:"If error happen, error port will emit an error message"`
}

type Error struct {
	Context Context `json:"context"`
	Error   string  `json:"error"`
}

type Request struct {
	Context  Context `json:"context" configurable:"true" title:"Context" description:"Arbitrary message to be send alongside with encoded message"`
	Document any     `json:"document" required:"true" configurable:"true" title:"Input object" description:""`
}

type Response struct {
	Context Context `json:"context"`
	Encoded string  `json:"encoded"`
}
