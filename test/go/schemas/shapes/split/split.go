// Package split declares the port types of common-module `split` (component `array_split`).
package split

type Context any

type ItemContext any

type InMessage struct {
	Context Context       `json:"context" title:"Context" configurable:"true" description:"Message to be send further with each item"`
	Array   []ItemContext `json:"array" title:"Array" default:"null" description:"Array of items to be split" required:"true" shared:"true"`
}

type OutMessage struct {
	Context Context     `json:"context"`
	Item    ItemContext `json:"item" shared:"true"`
	Index   int         `json:"index" title:"Index" description:"0-based position of this item in the source array"`
	Total   int         `json:"total" title:"Total" description:"Number of items in the source array"`
}
