// Package arrayget declares the port types of common-module `array_get`.
package arrayget

type Context any

type Item any

type Settings struct {
	EnableErrorPort bool `json:"enableErrorPort" title:"Enable Error Port" description:"Output errors to error port instead of failing"`
}

type Request struct {
	Context Context `json:"context,omitempty" configurable:"true" title:"Context" description:"Arbitrary context to pass through"`
	Array   []Item  `json:"array" required:"true" configurable:"true" title:"Array" description:"Array to get element from"`
	Index   int     `json:"index" required:"true" title:"Index" description:"1-based item number"`
}

type Result struct {
	Context Context `json:"context,omitempty" configurable:"true" title:"Context"`
	Item    Item    `json:"item" configurable:"true" title:"Item"`
	Index   int     `json:"index" title:"Index" description:"1-based index of the returned item"`
}

type Error struct {
	Context Context `json:"context,omitempty" configurable:"true" title:"Context"`
	Error   string  `json:"error" title:"Error"`
}
