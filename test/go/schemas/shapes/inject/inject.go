// Package inject declares the port types of common-module `inject`.
package inject

type Context any
type Data any

type Settings struct {
	ConfigRequired bool `json:"configRequired" title:"Config Required" description:"When enabled, messages arriving before config is set are sent to the error port instead of output"`
}

type Config struct {
	Data Data `json:"data" configurable:"true" required:"true" title:"Data" description:"Configuration data to inject into messages"`
}

type Message struct {
	Context Context `json:"context" configurable:"true" title:"Context" description:"Passthrough context for correlation"`
}

type Output struct {
	Context Context `json:"context" configurable:"true" title:"Context"`
	Config  Data    `json:"config" title:"Config" description:"Injected configuration from metadata"`
}

type ErrorOutput struct {
	Context Context `json:"context" configurable:"true" title:"Context"`
	Error   string  `json:"error" title:"Error"`
}
