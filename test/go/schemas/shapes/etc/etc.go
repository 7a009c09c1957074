// Package etc declares the shared http-module types `Header` and `ContentType`.
package etc

import "github.com/swaggest/jsonschema-go"

type Header struct {
	Key   string `json:"key" required:"true" title:"Key" colSpan:"col-span-6"`
	Value string `json:"value" required:"true" title:"Value" colSpan:"col-span-6"`
}

type ContentType string

// JSONSchema publishes the content type as a string select.
func (c ContentType) JSONSchema() (jsonschema.Schema, error) {
	s := jsonschema.Schema{}
	s.AddType(jsonschema.String)
	s.WithTitle("Content Type").
		WithEnum("application/json", "application/xml", "text/xml", "application/x-www-form-urlencoded", "multipart/form-data", "text/html", "text/plain").
		WithDescription("Content type of the response")
	return s, nil
}
