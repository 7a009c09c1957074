// Package form declares the port types of common-module `form`.
package form

type Context any

type Settings struct {
	Context Context `json:"context" required:"true" configurable:"true" title:"Form" description:"The form's fields. Author a custom schema (masked passwords via writeOnly + format:\"password\") for the fields a person fills."`
}

type Control struct {
	Context Context `json:"context" required:"true" configurable:"true" title:"Form"`
	Submit  bool    `json:"submit" format:"button" title:"Submit" required:"true"`
	Result  string  `json:"result,omitempty" readonly:"true" format:"markdown" title:"" description:""`
}

type ResultMessage struct {
	Text    string  `json:"text" required:"true" title:"Text" description:"Outcome shown inside the form widget, under the button. Markdown is rendered."`
	Prefill Context `json:"prefill,omitempty" title:"Prefill" description:"Optional values written back into the form's fields (e.g. the masked saved secret into a password field). Persisted; shown until the person edits or the flow overwrites."`
}
