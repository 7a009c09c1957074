// Package kv declares the port types of common-module `kv`.
package kv

import "github.com/swaggest/jsonschema-go"

// StoreContext flows through store → store_ack, QueryContext through query → query_result (the
// platform matches schemas by type name).
type StoreContext any
type QueryContext any

// Document is the user's record: a map whose schema, when it has no properties of its own, is an
// object requiring a string `id`.
type Document map[string]interface{}

// PrepareJSONSchema gives a Document without properties the default `id` property.
func (d Document) PrepareJSONSchema(schema *jsonschema.Schema) error {
	if len(schema.Properties) == 0 {
		id := jsonschema.Schema{}
		id.AddType(jsonschema.String)
		id.WithTitle("ID")
		schema.WithRequired("id")
		schema.Properties = map[string]jsonschema.SchemaOrBool{"id": id.ToSchemaOrBool()}
	}
	return nil
}

type Settings struct {
	Document       Document `json:"document,omitempty" type:"object" required:"true" title:"Document" description:"Structure of stored documents. Values are arbitrary. Make sure the document has the primary key defined below." configurable:"true"`
	PrimaryKey     string   `json:"primaryKey" title:"Primary Key" required:"true" default:"id"`
	MaxRecords     int      `json:"maxRecords" title:"Max Records" description:"Maximum number of records (0 = default 100). The real ceiling is the node's ~900KB total state byte budget, not the record count." default:"100"`
	EnableStoreAck bool     `json:"enableStoreAckPort" required:"true" title:"Enable Store Ack Port" description:"Emits acknowledgment after store/delete operations"`
}

type StoreRequest struct {
	Context   StoreContext `json:"context,omitempty" configurable:"true" title:"Context"`
	Operation string       `json:"operation" required:"true" enum:"store,delete" enumTitles:"Store,Delete" default:"store" title:"Operation"`
	Document  Document     `json:"document" required:"true" title:"Document" description:"Document to store or delete"`
}

type StoreAck struct {
	Context StoreContext `json:"context,omitempty" title:"Context"`
	Request StoreRequest `json:"request" title:"Request"`
}

type QueryRequest struct {
	Context QueryContext `json:"context,omitempty" configurable:"true" title:"Context"`
	Query   string       `json:"query,omitempty" required:"true" title:"Query" description:"JSONPath expression evaluated against each record (e.g. $.status == 'DOWN')"`
}

type QueryResultItem struct {
	Key      string   `json:"key" title:"Key"`
	Document Document `json:"document" title:"Document"`
}

type QueryResult struct {
	Context QueryContext      `json:"context,omitempty" title:"Context"`
	Results []QueryResultItem `json:"results" title:"Results"`
	Count   int               `json:"count" title:"Count"`
	Query   string            `json:"query" title:"Query"`
}

type Control struct {
	Records int  `json:"records" title:"Records" readonly:"true"`
	Reset   bool `json:"reset" format:"button" title:"Reset" required:"true"`
}
