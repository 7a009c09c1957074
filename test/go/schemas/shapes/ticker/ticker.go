// Package ticker declares the port types of common-module `ticker`.
package ticker

type Context any

type Settings struct {
	Context Context `json:"context" configurable:"true" title:"Context" description:"Arbitrary message to be send each period of time"`
	Delay   int     `json:"delay" required:"true" title:"Delay (ms)" description:"Delay between signals" minimum:"0" default:"1000"`
}

type ControlStopped struct {
	Context Context `json:"context" required:"true" title:"Context"`
	Status  string  `json:"status" title:"Status" readonly:"true"`
	Start   bool    `json:"start" format:"button" title:"Start" required:"true"`
}

type ControlRunning struct {
	Context Context `json:"context" required:"true" title:"Context" readonly:"true"`
	Status  string  `json:"status" title:"Status" readonly:"true"`
	Stop    bool    `json:"stop" format:"button" title:"Stop" required:"true"`
}
