// Package gotemplate declares the port types of encoding-module `gotemplate` (component
// `go_template`), read from tiny-systems/modules encoding-module/components/gotemplate/gotemplate.go
// @cfbeb8a: Go type names, JSON names, schema tags (including the capital-D `Description` tag on
// Template.Name) and TemplateName's JSONSchema() as there.
package gotemplate

import (
	"github.com/goccy/go-json"
	"github.com/swaggest/jsonschema-go"
)

type Context any
type RenderData any

// TemplateName carries its value and the names of the configured templates.
type TemplateName struct {
	Value   string
	Options []string
}

// MarshalJSON writes the value alone.
func (t *TemplateName) MarshalJSON() ([]byte, error) { return json.Marshal(t.Value) }

// UnmarshalJSON reads a plain string.
func (t *TemplateName) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, &t.Value) }

// JSONSchema publishes a string select over the template names, defaulting to the value.
func (t *TemplateName) JSONSchema() (jsonschema.Schema, error) {
	s := jsonschema.Schema{}
	s.AddType(jsonschema.String)
	s.WithTitle("Template")
	s.WithDescription("Select a template name. Add new templates via settings.")
	s.WithDefault(t.Value)
	enums := make([]interface{}, len(t.Options))
	for k, v := range t.Options {
		enums[k] = v
	}
	s.WithEnum(enums...)
	return s, nil
}

type Template struct {
	Name    string `json:"name" required:"true" title:"File name" Description:"e.g. footer.tmpl"`
	Content string `json:"content" required:"true" title:"Template" format:"textarea"`
}

type Settings struct {
	EnableErrorPort bool       `json:"enableErrorPort" required:"true" title:"Enable Error Port" description:"If error happen, error port will emit an error message" tab:"Settings"`
	Templates       []Template `json:"templates" required:"true" title:"Templates" minItems:"1" uniqueItems:"true" tab:"Templates"`
	Partials        []Template `json:"partials" required:"true" title:"Partials" description:"All partials being loaded with each template" minItems:"0" uniqueItems:"true" tab:"Partials"`
}

type Error struct {
	Context Context `json:"context"`
	Error   string  `json:"error"`
}

type Request struct {
	Context    Context      `json:"context,omitempty" configurable:"true" title:"Context" description:"Arbitrary message to be send alongside with rendered content"`
	RenderData RenderData   `json:"renderData,omitempty" configurable:"true" title:"Render data" description:"Data being used to render the template"`
	Template   TemplateName `json:"template" required:"true" title:"Template"`
}

type Response struct {
	Context Context `json:"context"`
	Content string  `json:"content"`
}

// Defaults is the component's defaultEngineSettings: what Instance() starts with (three pages
// over a layout, a footer and a nav partial).
var Defaults = Settings{
	Templates: []Template{
		{Name: "home.html", Content: "{{template \"layout.html\" .}}\n{{define \"title\"}}Welcome.{{end}}\n{{define \"content\"}}\nWelcome\n{{end}}"},
		{Name: "page1.html", Content: "{{template \"layout.html\" .}}\n{{define \"title\"}} Page one.{{end}}\n{{define \"content\"}}\nI'm page 1\n{{end}}"},
		{Name: "page2.html", Content: "{{template \"layout.html\" .}}\n{{define \"title\"}} Page 2 title {{end}}\n{{define \"content\"}}\nI'm page 2\n{{end}}"},
	},
	Partials: []Template{
		{Name: "layout.html", Content: "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<title>{{block \"title\" .}}{{end}}</title>\n</head>\n<body>\n{{block \"nav\" . }}{{end}}\n<div style=\"padding:20px\">\n{{block \"content\" .}}{{end}}\n</div>\n{{block \"footer\" .}}{{end}}\n</body>\n</html>"},
		{Name: "footer.html", Content: "{{define \"footer\"}}\n<hr/>\n<div style=\"text-align:center\">\n <p>&copy; {{now.UTC.Year}}</p>\n <p>{{builtWith}}</p>\n</div>\n{{end}}"},
		{Name: "nav.html", Content: "{{define \"nav\"}}\n<div>\n <a href=\"/\">Home page</a>\n <a href=\"/page1\">Page1</a>\n <a href=\"/page2\">Page2</a>\n</div>\n{{end}}"},
	},
}
