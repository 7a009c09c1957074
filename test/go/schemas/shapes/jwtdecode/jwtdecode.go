// Package jwtdecode declares the port types of encoding-module `jwt/verify` (component
// `jwt_decode`), read from tiny-systems/modules encoding-module/components/jwt/verify/verify.go
// @cfbeb8a: Go type names, JSON names, schema tags and JSONSchema() methods as there.
package jwtdecode

import (
	"github.com/goccy/go-json"
	"github.com/swaggest/jsonschema-go"
	"tinyhost.test/gotools/schemas/shapes/jwtencode"
)

type Context any

type Settings struct {
	EnableErrorPort bool `json:"enableErrorPort" required:"true" title:"Enable Error Port" description:"If error happens, error port will emit an error message"`
}

type Error struct {
	Context Context `json:"context"`
	Error   string  `json:"error"`
}

// SigningMethod carries its value and the options of the editor's select.
type SigningMethod struct {
	Value   string
	Options []string
}

// MarshalJSON writes the value alone.
func (r *SigningMethod) MarshalJSON() ([]byte, error) { return json.Marshal(r.Value) }

// UnmarshalJSON reads a plain string.
func (r *SigningMethod) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, &r.Value) }

// JSONSchema publishes a string select over the options, defaulting to the value.
func (r *SigningMethod) JSONSchema() (jsonschema.Schema, error) {
	s := jsonschema.Schema{}
	s.AddType(jsonschema.String)
	s.WithTitle("Signing Method")
	s.WithDefault(r.Value)
	enums := make([]interface{}, len(r.Options))
	for k, v := range r.Options {
		enums[k] = v
	}
	s.WithEnum(enums...)
	return s, nil
}

type Request struct {
	Context       Context       `json:"context" configurable:"true" title:"Context" description:"Arbitrary message to pass through"`
	SigningMethod SigningMethod `json:"signingMethod" required:"true" title:"Signing Method"`
	Token         string        `json:"token" required:"true" title:"Token" description:"JWT token to verify and decode"`
	Key           string        `json:"key" required:"true" format:"textarea" title:"Key" description:"Plain text secret or PEM formatted public key"`
}

// Claims are the decoded claims; the schema lists the registered claims of RFC 7519 §4.1.
type Claims map[string]interface{}

// JSONSchema publishes an object with the seven registered claims.
func (m Claims) JSONSchema() (jsonschema.Schema, error) { return jwtencode.RegisteredClaims(), nil }

type Response struct {
	Context Context `json:"context"`
	Claims  Claims  `json:"claims" configurable:"true" title:"Claims" description:"Decoded JWT claims"`
}
