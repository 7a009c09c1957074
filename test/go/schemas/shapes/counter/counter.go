// Package counter declares tinyhost's `counter` ports the way a Go component would.
package counter

type Context any

type Settings struct {
	Step    int `json:"step" title:"Step" description:"Added to the count for each message unless the message sets By; 0 means 1" default:"1"`
	Initial int `json:"initial" title:"Initial" description:"Count before the first message, and after a reset"`
}

type InMessage struct {
	Context Context `json:"context" configurable:"true" title:"Context" description:"Message passed on with the count"`
	By      int     `json:"by" title:"By" description:"Added instead of Step when not zero"`
}

type OutMessage struct {
	Context Context `json:"context" configurable:"true" title:"Context"`
	Count   int     `json:"count" title:"Count"`
}

type Control struct {
	Count int  `json:"count" title:"Count" readonly:"true"`
	Reset bool `json:"reset" format:"button" title:"Reset" required:"true"`
}
