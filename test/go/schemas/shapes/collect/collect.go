// Package collect declares the port types of common-module `collect`.
package collect

type Context any

type Settings struct {
	EnableErrorPort bool `json:"enableErrorPort" required:"true" title:"Enable Error Port" description:"Emit timed-out groups on the Error port. Without it expired groups are dropped silently (a warning is logged) — enable this in production."`
	TimeoutSeconds  int  `json:"timeoutSeconds" title:"Timeout Seconds" default:"300" description:"How long to wait for a group's stragglers after its first item arrives (0 = default 300). Expiry is checked when messages arrive, so an idle node holds stragglers until the next message."`
	MaxGroups       int  `json:"maxGroups" title:"Max Groups" default:"100" description:"Maximum number of in-flight groups (0 = default 100). Guards the node's ~900KB state budget."`
}

type InMessage struct {
	Context  Context `json:"context,omitempty" configurable:"true" title:"Context" description:"Passthrough payload; the group's Response carries the context of its LAST arriving item."`
	GroupKey string  `json:"groupKey" required:"true" title:"Group Key" description:"Identity of the fan-out this item belongs to — map something unique per source message (e.g. $.context.runId). Every item of one array must share it; different runs must differ."`
	Index    int     `json:"index" title:"Index" description:"0-based position of this item in the reassembled array — map array_split's index. A duplicate index overwrites; it does not double-count."`
	Total    int     `json:"total" required:"true" title:"Total" description:"Number of items the group expects — map array_split's total. Must be >= 1 and identical for every item of the group."`
	Item     any     `json:"item" title:"Item" description:"The per-item payload to reassemble."`
}

type OutMessage struct {
	Context Context `json:"context,omitempty" title:"Context" description:"Context of the group's last arriving item."`
	Items   []any   `json:"items" title:"Items" description:"All items of the group, ordered by index."`
}

type ErrorMessage struct {
	Context  Context `json:"context,omitempty" title:"Context" description:"Context of the group's last arriving item."`
	GroupKey string  `json:"groupKey" title:"Group Key"`
	Received int     `json:"received" title:"Received"`
	Total    int     `json:"total" title:"Total"`
	Error    string  `json:"error" title:"Error"`
}
