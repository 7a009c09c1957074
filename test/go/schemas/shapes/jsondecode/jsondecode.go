// Package jsondecode declares the port types of encoding-module `json/decode` (component
// `json_decode`), read from tiny-systems/modules encoding-module/components/json/decode/decode.go
// @cfbeb8a: Go type names, JSON names and schema tags as there.
package jsondecode

type Context any

type Decoded any

type Settings struct {
	EnableErrorPort bool    `json:"enableErrorPort" required:"true" title:"Enable Error Port" description:"If error happen, error port will emit an error message"`
	Decoded         Decoded `json:"decoded" configurable:"true" title:"Decoded shape" description:"Schema and example of the decoded JSON. Downstream edges from this node will be validated against this shape."`
}

type Error struct {
	Context Context `json:"context"`
	Error   string  `json:"error"`
}

type Request struct {
	Context Context `json:"context,omitempty" configurable:"true" title:"Context" description:"Arbitrary message to be send alongside with decoded message"`
	Encoded string  `json:"encoded" required:"true" title:"Input string" format:"textarea" description:"JSON encoded string"`
}

type Output struct {
	Context Context `json:"context"`
	Decoded Decoded `json:"decoded" configurable:"true"`
}
