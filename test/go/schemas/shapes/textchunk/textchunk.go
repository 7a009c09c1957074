// Package textchunk declares the port types of encoding-module `textchunk` (component
// `text_chunk`), read from tiny-systems/modules encoding-module/components/textchunk/textchunk.go
// @cfbeb8a: Go type names, JSON names and schema tags as there.
package textchunk

type Context any

type Request struct {
	Context Context `json:"context,omitempty" configurable:"true" title:"Context" description:"Passthrough — carry the document's id or source here so each chunk can be traced back to it."`
	Text    string  `json:"text" required:"true" format:"textarea" title:"Text" description:"The document to split."`
}

type Chunk struct {
	Index int    `json:"index" title:"Index"`
	Text  string `json:"text" title:"Text"`
	Start int    `json:"start" title:"Start" description:"Byte offset in the original text."`
	End   int    `json:"end" title:"End"`
}

type Response struct {
	Context   Context `json:"context,omitempty" configurable:"true" title:"Context"`
	Chunks    []Chunk `json:"chunks" title:"Chunks" description:"Wire through array_split so each chunk reaches embed_text on its own."`
	Count     int     `json:"count" title:"Count"`
	Truncated bool    `json:"truncated" title:"Truncated" description:"True when the document produced more pieces than maxChunks and the rest were dropped. Check it — a silently half-indexed document answers questions wrongly rather than not at all."`
}

type Error struct {
	Context Context `json:"context,omitempty" configurable:"true" title:"Context"`
	Error   string  `json:"error" title:"Error"`
}

type Settings struct {
	ChunkSize       int    `json:"chunkSize" required:"true" default:"1000" title:"Chunk Size" description:"Target size in characters. A chunk may come in under it when a boundary falls early, and may exceed it only when a single unbreakable run is longer."`
	Overlap         int    `json:"overlap" default:"200" title:"Overlap" description:"Characters repeated from the end of one chunk at the start of the next, so a sentence spanning a boundary is still retrievable. Must be smaller than the chunk size."`
	SplitOn         string `json:"splitOn" default:"paragraph" enum:"paragraph,line,sentence,none" enumTitles:"Paragraph,Line,Sentence,Anywhere" title:"Split On" description:"Where a break is allowed. Prose splits best on paragraph; a log or CSV-ish file on line; 'none' cuts at exactly the chunk size and will cut mid-word."`
	MaxChunks       int    `json:"maxChunks" default:"500" title:"Max Chunks" description:"Ceiling on pieces from one document, so an unexpectedly large file cannot flood the embedder. Reaching it sets truncated."`
	EnableErrorPort bool   `json:"enableErrorPort" title:"Enable Error Port" description:"Output errors to the error port instead of failing the run."`
}
