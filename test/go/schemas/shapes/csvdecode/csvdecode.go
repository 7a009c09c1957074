// Package csvdecode declares the port types of encoding-module `csv/decode` (component
// `csv_decode`), read from tiny-systems/modules encoding-module/components/csv/decode/decode.go
// @cfbeb8a: Go type names, JSON names and schema tags as there.
package csvdecode

type Context any

// Rows is the decoded table; its shape comes from the `rows` setting.
type Rows any

type Request struct {
	Context Context `json:"context,omitempty" configurable:"true" title:"Context" description:"Passthrough — carry the file's name or source here so a row can be traced back to it."`
	Encoded string  `json:"encoded" required:"true" format:"textarea" title:"CSV" description:"The CSV text to decode."`
}

type Response struct {
	Context   Context  `json:"context,omitempty" configurable:"true" title:"Context"`
	Rows      Rows     `json:"rows" configurable:"true" title:"Rows" description:"One object per record. Wire through array_split so each row arrives as its own message."`
	Headers   []string `json:"headers" title:"Headers" description:"The column names used as keys. Check these when a mapping comes back empty — an export that renamed a column breaks quietly otherwise."`
	Count     int      `json:"count" title:"Count"`
	Truncated bool     `json:"truncated" title:"Truncated" description:"True when the file had more records than maxRows and the rest were dropped."`
}

type Error struct {
	Context Context `json:"context,omitempty" configurable:"true" title:"Context"`
	Error   string  `json:"error" title:"Error"`
}

type Settings struct {
	Delimiter       string `json:"delimiter" required:"true" default:"comma" enum:"comma,semicolon,tab,pipe" enumTitles:"Comma ,|Semicolon ;|Tab|Pipe |" title:"Delimiter" description:"The field separator. European exports and anything produced from a locale that uses a comma for decimals are usually semicolon-separated."`
	NoHeader        bool   `json:"noHeader" title:"First Row Is Data, Not A Header" description:"Off (default): the first record names the columns. On: there is no header, and columns are named col1, col2 … so the output shape stays an object either way."`
	TrimSpace       bool   `json:"trimSpace" title:"Trim Leading Space" description:"Ignore space that follows a delimiter. Turn this on for a file written with ', ' between fields."`
	LazyQuotes      bool   `json:"lazyQuotes" title:"Tolerate Bad Quoting" description:"Accept a bare quote inside an unquoted field instead of failing. Real exports contain them; the cost is that a genuinely malformed file decodes to something wrong rather than reporting itself."`
	AllowRagged     bool   `json:"allowRagged" title:"Allow Rows With Missing Or Extra Fields" description:"On: a short row has its missing columns filled with empty strings and extra fields land in col<N>. Off (default): a row whose field count differs from the header fails, so a shifted file is reported rather than silently mis-keyed."`
	InferTypes      bool   `json:"inferTypes" title:"Infer Numbers And Booleans" description:"On: a field that parses as a number or as true/false becomes one, so a downstream $.restarts > 3 works. Off (default): every field stays a string. Leave it off when a column holds an identifier — 007 and 01234 do not survive inference."`
	MaxRows         int    `json:"maxRows" default:"10000" title:"Max Rows" description:"Ceiling on records from one file. Reaching it sets truncated."`
	Rows            Rows   `json:"rows" configurable:"true" title:"Rows shape" description:"An example of the decoded rows — one representative object is enough. A CSV string has no shape, so without this every downstream edge is unverifiable: {{$.rows[0].amount}} is accepted when the flow is built and resolves to null at runtime."`
	EnableErrorPort bool   `json:"enableErrorPort" title:"Enable Error Port" description:"Output errors to the error port instead of failing the run."`
}
