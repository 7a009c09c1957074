package main

import (
	"tinyhost.test/gotools/schemas/shapes/csvdecode"
	"tinyhost.test/gotools/schemas/shapes/csvencode"
	"tinyhost.test/gotools/schemas/shapes/gotemplate"
	"tinyhost.test/gotools/schemas/shapes/jsondecode"
	"tinyhost.test/gotools/schemas/shapes/jsonencode"
	"tinyhost.test/gotools/schemas/shapes/jwtdecode"
	"tinyhost.test/gotools/schemas/shapes/jwtencode"
	"tinyhost.test/gotools/schemas/shapes/textchunk"
	"tinyhost.test/gotools/schemas/shapes/xmlencode"
)

// The encoding-module's components (tiny-systems/modules encoding-module), each in the states its
// Ports() distinguishes: Instance() defaults, the error port on, and settings that reach a port's
// configuration (csv_decode and json_decode's example shapes, go_template's template names).
// Appended to cases in an init so each module's cases live in a file of their own.
func init() {
	rowsExample := []interface{}{map[string]interface{}{"name": "api-1", "restarts": 3.0}}
	decodedExample := map[string]interface{}{"user": map[string]interface{}{"id": 1.0}}
	cases = append(cases,
		schemaCase{"csv_decode/default", "csv_decode", csvDecodePorts(csvdecode.Settings{})},
		schemaCase{"csv_decode/error-port", "csv_decode", csvDecodePorts(csvdecode.Settings{Delimiter: "semicolon", MaxRows: 50, InferTypes: true, EnableErrorPort: true})},
		schemaCase{"csv_decode/rows", "csv_decode", csvDecodePorts(csvdecode.Settings{Delimiter: "comma", Rows: rowsExample})},
		schemaCase{"csv_encode/default", "csv_encode", csvEncodePorts(csvencode.Settings{})},
		schemaCase{"csv_encode/error-port", "csv_encode", csvEncodePorts(csvencode.Settings{Delimiter: "tab", Columns: []string{"b", "a"}, EnableErrorPort: true})},
		schemaCase{"json_decode/default", "json_decode", jsonDecodePorts(jsondecode.Settings{})},
		schemaCase{"json_decode/decoded", "json_decode", jsonDecodePorts(jsondecode.Settings{EnableErrorPort: true, Decoded: decodedExample})},
		schemaCase{"json_encode/default", "json_encode", []port{
			{"request", jsonencode.Request{}},
			{"response", jsonencode.Response{}},
			{"_settings", jsonencode.Settings{}},
		}},
		schemaCase{"json_encode/error-port", "json_encode", []port{
			{"request", jsonencode.Request{}},
			{"response", jsonencode.Response{}},
			{"_settings", jsonencode.Settings{EnableErrorPort: true}},
			{"error", jsonencode.Error{}},
		}},
		schemaCase{"xml_encode/default", "xml_encode", []port{
			{"request", xmlencode.Request{}},
			{"response", xmlencode.Response{}},
			{"_settings", xmlencode.Settings{}},
		}},
		schemaCase{"xml_encode/error-port", "xml_encode", []port{
			{"request", xmlencode.Request{}},
			{"response", xmlencode.Response{}},
			{"_settings", xmlencode.Settings{EnableErrorPort: true}},
			{"error", xmlencode.Error{}},
		}},
		schemaCase{"jwt_encode/default", "jwt_encode", jwtEncodePorts(false)},
		schemaCase{"jwt_encode/error-port", "jwt_encode", jwtEncodePorts(true)},
		schemaCase{"jwt_decode/default", "jwt_decode", jwtDecodePorts(false)},
		schemaCase{"jwt_decode/error-port", "jwt_decode", jwtDecodePorts(true)},
		schemaCase{"text_chunk/default", "text_chunk", textChunkPorts(textchunk.Settings{})},
		schemaCase{"text_chunk/error-port", "text_chunk", textChunkPorts(textchunk.Settings{ChunkSize: 100, Overlap: 20, SplitOn: "line", MaxChunks: 50, EnableErrorPort: true})},
		schemaCase{"go_template/default", "go_template", goTemplatePorts(gotemplate.Defaults)},
		schemaCase{"go_template/custom", "go_template", goTemplatePorts(gotemplate.Settings{
			EnableErrorPort: true,
			Templates:       []gotemplate.Template{{Name: "greeting.txt", Content: "Hello {{.name}}"}, {Name: "list.txt", Content: "{{range .}}{{.}},{{end}}"}},
			Partials:        []gotemplate.Template{},
		})},
	)
}

func csvDecodePorts(s csvdecode.Settings) []port {
	ports := []port{
		{"request", csvdecode.Request{}},
		{"response", csvdecode.Response{Rows: s.Rows}},
		{"_settings", s},
	}
	if s.EnableErrorPort {
		ports = append(ports, port{"error", csvdecode.Error{}})
	}
	return ports
}

func csvEncodePorts(s csvencode.Settings) []port {
	ports := []port{
		{"request", csvencode.Request{}},
		{"response", csvencode.Response{}},
		{"_settings", s},
	}
	if s.EnableErrorPort {
		ports = append(ports, port{"error", csvencode.Error{}})
	}
	return ports
}

func jsonDecodePorts(s jsondecode.Settings) []port {
	ports := []port{
		{"request", jsondecode.Request{}},
		{"response", jsondecode.Output{Decoded: s.Decoded}},
		{"_settings", s},
	}
	if s.EnableErrorPort {
		ports = append(ports, port{"error", jsondecode.Error{}})
	}
	return ports
}

func jwtEncodePorts(errorPort bool) []port {
	ports := []port{
		{"request", jwtencode.Request{SigningMethod: jwtencode.SigningMethod{Value: "HS256", Options: jwtencode.SigningMethods}}},
		{"response", jwtencode.Response{}},
		{"_settings", jwtencode.Settings{EnableErrorPort: errorPort}},
	}
	if errorPort {
		ports = append(ports, port{"error", jwtencode.Error{}})
	}
	return ports
}

func jwtDecodePorts(errorPort bool) []port {
	ports := []port{
		{"request", jwtdecode.Request{SigningMethod: jwtdecode.SigningMethod{Value: "HS256", Options: jwtencode.SigningMethods}}},
		{"response", jwtdecode.Response{}},
		{"_settings", jwtdecode.Settings{EnableErrorPort: errorPort}},
	}
	if errorPort {
		ports = append(ports, port{"error", jwtdecode.Error{}})
	}
	return ports
}

func textChunkPorts(s textchunk.Settings) []port {
	ports := []port{
		{"request", textchunk.Request{}},
		{"response", textchunk.Response{}},
		{"_settings", s},
	}
	if s.EnableErrorPort {
		ports = append(ports, port{"error", textchunk.Error{}})
	}
	return ports
}

// goTemplatePorts is go_template's Ports(): the request's template select lists the templates'
// names and defaults to the first.
func goTemplatePorts(s gotemplate.Settings) []port {
	names := make([]string, len(s.Templates))
	for i, t := range s.Templates {
		names[i] = t.Name
	}
	first := ""
	if len(names) > 0 {
		first = names[0]
	}
	ports := []port{
		{"request", gotemplate.Request{Template: gotemplate.TemplateName{Value: first, Options: names}}},
		{"response", gotemplate.Response{}},
		{"_settings", s},
	}
	if s.EnableErrorPort {
		ports = append(ports, port{"error", gotemplate.Error{}})
	}
	return ports
}
