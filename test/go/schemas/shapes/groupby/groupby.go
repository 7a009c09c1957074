// Package groupby declares the port types of common-module `group_by`.
package groupby

type Context any

type Item any

type InMessage struct {
	Context     Context `json:"context" configurable:"true" title:"Context" description:"Arbitrary data passed through to output"`
	Items       []Item  `json:"items" required:"true" configurable:"true" title:"Items" description:"Array of items to group"`
	GroupByPath string  `json:"groupByPath" required:"true" configurable:"true" title:"Group By Path" description:"JSON path to group by (e.g., 'labels.app', 'namespace', 'kind')"`
}

type Group struct {
	Key   string `json:"key" title:"Key" description:"The group key value"`
	Items []Item `json:"items" title:"Items" description:"Items in this group"`
	Count int    `json:"count" title:"Count" description:"Number of items in group"`
}

type OutMessage struct {
	Context Context `json:"context,omitempty" title:"Context"`
	Groups  []Group `json:"groups" title:"Groups" description:"Grouped items"`
	Total   int     `json:"total" title:"Total" description:"Total number of items"`
}
