// Package csvencode declares the port types of encoding-module `csv/encode` (component
// `csv_encode`), read from tiny-systems/modules encoding-module/components/csv/encode/encode.go
// @cfbeb8a: Go type names, JSON names and schema tags as there.
package csvencode

type Context any

type Request struct {
	Context Context `json:"context,omitempty" configurable:"true" title:"Context" description:"Passthrough, emitted with the encoded file."`
	Rows    []any   `json:"rows" required:"true" title:"Rows" description:"The objects to write, one row each. Map an upstream array straight in: {{$.rows}}. Wire collect before this when the rows arrive one at a time."`
}

type Response struct {
	Context Context  `json:"context,omitempty" configurable:"true" title:"Context"`
	Encoded string   `json:"encoded" title:"CSV" description:"The encoded file, ready for an attachment, an object write or an HTTP body."`
	Columns []string `json:"columns" title:"Columns" description:"The columns written, in order."`
	Count   int      `json:"count" title:"Count" description:"Rows written, not counting the header."`
}

type Error struct {
	Context Context `json:"context,omitempty" configurable:"true" title:"Context"`
	Error   string  `json:"error" title:"Error"`
}

type Settings struct {
	Delimiter       string   `json:"delimiter" required:"true" default:"comma" enum:"comma,semicolon,tab,pipe" enumTitles:"Comma ,|Semicolon ;|Tab|Pipe |" title:"Delimiter"`
	Columns         []string `json:"columns" title:"Columns" description:"The columns to write, in order. Leave empty to use every key found across the rows, sorted — deterministic, but rarely the order a reader wants. Naming them also drops the fields a report should not carry."`
	OmitHeader      bool     `json:"omitHeader" title:"Omit The Header Row" description:"Off (default): the first line names the columns. On: rows only, for appending to a file that already has a header."`
	FailOnMissing   bool     `json:"failOnMissing" title:"Fail When A Row Is Missing A Column" description:"Off (default): a row without one of the columns gets an empty cell. On: it fails, for a report where a blank would be read as a zero."`
	EnableErrorPort bool     `json:"enableErrorPort" title:"Enable Error Port" description:"Output errors to the error port instead of failing the run."`
}
