// Package router declares the port types of common-module `router`.
package router

import (
	"github.com/goccy/go-json"
	"github.com/swaggest/jsonschema-go"
)

type Context any

// RouteName carries its value and the route options for the editor's select.
type RouteName struct {
	Value   string
	Options []string
}

// MarshalJSON writes the value alone.
func (r *RouteName) MarshalJSON() ([]byte, error) { return json.Marshal(r.Value) }

// UnmarshalJSON reads a plain string.
func (r *RouteName) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, &r.Value) }

// JSONSchema publishes the route as a shared string select over the options, defaulting to the value.
func (r *RouteName) JSONSchema() (jsonschema.Schema, error) {
	s := jsonschema.Schema{}
	s.AddType(jsonschema.String)
	s.WithTitle("Route")
	s.WithDefault(r.Value)
	s.WithExtraPropertiesItem("shared", true)
	options := make([]interface{}, 0, len(r.Options))
	for _, o := range r.Options {
		options = append(options, o)
	}
	s.WithEnum(options...)
	return s, nil
}

type Condition struct {
	RouteName RouteName `json:"route" title:"Route" required:"true"`
	Condition bool      `json:"condition" required:"true" title:"Condition"`
}

type Settings struct {
	Routes            []string `json:"routes" required:"true" title:"Routes" minItems:"1" uniqueItems:"true"`
	EnableDefaultPort bool     `json:"enableDefaultPort" required:"true" title:"Enable default port"`
}

type InMessage struct {
	Context    Context     `json:"context" configurable:"true" required:"true" title:"Context" description:"Arbitrary message to be routed"`
	Conditions []Condition `json:"conditions" required:"true" title:"Conditions" minItems:"1" uniqueItems:"true"`
}

type OutMessage struct {
	Context Context `json:"context" configurable:"true" title:"Context" description:"Passthrough — the routed message, unchanged"`
}
