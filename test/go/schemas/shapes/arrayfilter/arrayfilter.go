// Package arrayfilter declares the port types of common-module `array_filter`.
package arrayfilter

type Context any

type Request struct {
	Context Context `json:"context,omitempty" configurable:"true" title:"Context" description:"Passthrough, emitted with the result."`
	Array   []any   `json:"array" required:"true" title:"Array" description:"The items to filter. Map an upstream array straight in: {{$.pods}}."`
	Query   string  `json:"query" required:"true" title:"Query" description:"JSONPath predicate evaluated against EACH item, the same dialect kv uses — e.g. $.hasProblem, $.phase == 'Running', $.restarts > 3."`
}

type Result struct {
	Context Context `json:"context,omitempty" configurable:"true" title:"Context"`
	Items   []any   `json:"items" title:"Items" description:"The items the predicate kept, in their original order."`
	Count   int     `json:"count" title:"Count" description:"How many matched — wire this to a router to branch on 'any' versus 'none'."`
	Total   int     `json:"total" title:"Total" description:"How many were examined. count == total means the predicate kept everything, which usually means it is wrong."`
}

type Error struct {
	Context Context `json:"context,omitempty" configurable:"true" title:"Context"`
	Error   string  `json:"error" title:"Error"`
}

type Settings struct {
	SkipUnevaluable bool `json:"skipUnevaluable" title:"Skip Items The Query Cannot Evaluate" description:"On: an item the predicate cannot be evaluated against is treated as not matching. Off (default): it fails, so a mistyped field name is reported rather than silently filtering everything away."`
	EnableErrorPort bool `json:"enableErrorPort" title:"Enable Error Port" description:"Output errors to the error port instead of failing the run."`
}
