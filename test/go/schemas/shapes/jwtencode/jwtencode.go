// Package jwtencode declares the port types of encoding-module `jwt/encode` (component
// `jwt_encode`), read from tiny-systems/modules encoding-module/components/jwt/encode/encode.go and
// claims.go @cfbeb8a: Go type names, JSON names, schema tags and the two JSONSchema() methods as
// there (the claims' other methods only serve golang-jwt and change no schema).
package jwtencode

import (
	"github.com/goccy/go-json"
	"github.com/swaggest/jsonschema-go"
)

type Context any

type Settings struct {
	EnableErrorPort bool `json:"enableErrorPort" required:"true" title:"Enable Error Port" description:"If error happen, error port will emit an error message"`
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

// MapClaims is any claims object; its schema lists the registered claims of RFC 7519 §4.1.
type MapClaims map[string]interface{}

// JSONSchema publishes an object with the seven registered claims.
func (m MapClaims) JSONSchema() (jsonschema.Schema, error) {
	return registeredClaims(true), nil
}

// registeredClaims is the object schema both JWT components publish for claims; the encoder's
// `exp` carries a description, the decoder's does not.
func registeredClaims(expDescription bool) jsonschema.Schema {
	exp := (&jsonschema.Schema{}).WithTitle("ExpiresAt").WithType(jsonschema.Integer.Type())
	if expDescription {
		exp = exp.WithDescription("Expiration time")
	}
	s := jsonschema.Schema{}
	s.AddType(jsonschema.Object)
	s.WithProperties(map[string]jsonschema.SchemaOrBool{
		"sub": (&jsonschema.Schema{}).WithTitle("Subject").WithType(jsonschema.String.Type()).ToSchemaOrBool(),
		"iss": (&jsonschema.Schema{}).WithTitle("Issuer").WithType(jsonschema.String.Type()).ToSchemaOrBool(),
		"aud": (&jsonschema.Schema{}).WithTitle("Audience").WithType(jsonschema.Array.Type()).WithItems(*(&jsonschema.Items{}).WithSchemaOrBool((&jsonschema.Schema{}).WithType(jsonschema.String.Type()).ToSchemaOrBool())).ToSchemaOrBool(),
		"exp": exp.ToSchemaOrBool(),
		"nbf": (&jsonschema.Schema{}).WithTitle("NotBefore").WithType(jsonschema.Integer.Type()).ToSchemaOrBool(),
		"iat": (&jsonschema.Schema{}).WithTitle("IssuedAt").WithType(jsonschema.Integer.Type()).ToSchemaOrBool(),
		"jti": (&jsonschema.Schema{}).WithTitle("ID").WithType(jsonschema.String.Type()).ToSchemaOrBool(),
	})
	return s
}

// RegisteredClaims is the claims schema of jwt_decode (no `exp` description), shared with
// package jwtdecode so the two stay one declaration.
func RegisteredClaims() jsonschema.Schema { return registeredClaims(false) }

// SigningMethods are the options both JWT components offer, in Go's order.
var SigningMethods = []string{"ES256", "ES384", "ES512", "HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "None"}

type Request struct {
	Context       Context       `json:"context" configurable:"true" title:"Context" description:"Arbitrary message to be send alongside with encoded message"`
	SigningMethod SigningMethod `json:"signingMethod" required:"true" title:"Signing Method" description:""`
	Claims        MapClaims     `json:"claims" configurable:"true" required:"true" title:"Claims" description:""`
	Key           string        `json:"key" required:"true" format:"textarea" title:"Private Key" description:"Plain text or PEM formatted private key"`
}

type Response struct {
	Context Context `json:"context"`
	Token   string  `json:"token"`
}
