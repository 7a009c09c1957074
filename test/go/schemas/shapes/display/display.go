// Package display declares the port types of common-module `display`.
package display

type Settings struct {
	Text string `json:"text" format:"markdown" title:"Text" description:"Shown until a message arrives. Use it for a readme or a placeholder — it ships with the flow, unlike text delivered at runtime."`
}

type InMessage struct {
	Text string `json:"text" required:"true" title:"Text" description:"What to show. Markdown is rendered."`
}

type Control struct {
	Text string `json:"text" readonly:"true" format:"markdown" title:"" description:""`
}
