// Package chat declares the port types of common-module `chat`, its default question form, its
// `_control` schema (published verbatim, Go Port.Schema) and the sample answer values its Ports()
// derives from a form.
package chat

import "encoding/json"

// DefaultForm is the question form used when neither the ask request nor the settings author one.
const DefaultForm = `{
  "type": "object",
  "properties": {
    "approve": {"type": "boolean", "title": "Approve", "format": "button", "propertyOrder": 1},
    "deny":    {"type": "boolean", "title": "Deny",    "format": "button", "propertyOrder": 2}
  }
}`

type Context any

type Say struct {
	RequestID string  `json:"requestId,omitempty" title:"Request ID" description:"Id from a message emitted on the Message port; carrying it back marks that message answered. Empty or unknown ids are shown as unsolicited messages, not dropped."`
	Role      string  `json:"role,omitempty" title:"Role" enum:"assistant,system,error" description:"How the bubble renders: assistant (default), system note, or error note."`
	Text      string  `json:"text" title:"Text" description:"Markdown is rendered."`
	Context   Context `json:"context,omitempty" configurable:"true" title:"Context"`
}

type AskRequest struct {
	Context Context `json:"context,omitempty" configurable:"true" title:"Context" description:"Payload under review — shown on the question card and passed through to the answer."`
	Form    string  `json:"form,omitempty" title:"Form" format:"code" language:"json" description:"JSON Schema of the question form, overriding the Settings form for this question only. Fields with format:\"button\" are the answers."`
}

type ClearRequest struct {
	Context Context `json:"context,omitempty" configurable:"true" title:"Context" description:"Passthrough payload, carried for correlation only — anything arriving here wipes the displayed conversation and any pending questions. Conversation MEMORY lives in a store component and must be cleared there separately."`
}

type Message struct {
	RequestID string  `json:"requestId" title:"Request ID" description:"Carry this back on Say so the thread marks the message answered."`
	Text      string  `json:"text" title:"Text"`
	Context   Context `json:"context,omitempty" title:"Context"`
}

type Answer struct {
	QuestionID string                 `json:"questionId" title:"Question ID"`
	Values     map[string]interface{} `json:"values" title:"Values" description:"What the human submitted, keyed by the form's field names."`
	Context    Context                `json:"context,omitempty" title:"Context" description:"The ask request payload, unchanged."`
}

type ErrorMessage struct {
	Context Context `json:"context,omitempty" title:"Context" description:"The ask request payload of the expired question, unchanged."`
	Error   string  `json:"error" title:"Error"`
}

type Settings struct {
	Form            string `json:"form,omitempty" title:"Question Form" format:"code" language:"json" description:"Default JSON Schema for ask questions (a request's own form overrides it). Leave empty for Approve/Deny."`
	TimeoutSeconds  int    `json:"timeoutSeconds" title:"Question Timeout Seconds" default:"0" description:"How long a question may stay unanswered before it expires onto the Error port (0 = wait forever). Expiry is passive — checked when messages arrive and on reconcile ticks."`
	EnableErrorPort bool   `json:"enableErrorPort" required:"true" title:"Enable Error Port" description:"Emit timed-out questions on the Error port as {context, error}. Without it expired questions are dropped with a log line — enable this when a timeout is set."`
	HistoryLimit    int    `json:"historyLimit" title:"History Limit" default:"50" description:"Messages kept in the widget thread. Display only — conversation memory belongs in a store component."`
	Placeholder     string `json:"placeholder,omitempty" title:"Composer Placeholder" description:"Hint text in the input box, e.g. 'Ask the agent…'."`
	HideComposer    bool   `json:"hideComposer" title:"Hide Composer" description:"Form mode: the widget shows only question cards and notes — no free-text input. For settings-style surfaces where the flow drives every question (keep the card armed by re-asking after each answer)."`
}

// ControlSchema is the `_control` port's authored schema: the chat renderer's root format, and
// the submission fields for hosts that fall back to a form.
func ControlSchema() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "format": "chat",
  "properties": {
    "_kind": {"type": "string", "title": "Kind", "readonly": true},
    "text":  {"type": "string", "title": "Message", "format": "textarea"},
    "_qid":  {"type": "string", "title": "Question ID", "readonly": true}
  }
}`)
}

// SampleValues advertises a form's fields on the Answer port: each property's zero value by type.
func SampleValues(form string) map[string]interface{} {
	out := map[string]interface{}{}
	var parsed struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
	}
	if err := json.Unmarshal([]byte(form), &parsed); err != nil {
		return out
	}
	for name, prop := range parsed.Properties {
		switch prop.Type {
		case "boolean":
			out[name] = false
		case "string":
			out[name] = ""
		case "number", "integer":
			out[name] = 0
		case "array":
			out[name] = []interface{}{}
		default:
			out[name] = map[string]interface{}{}
		}
	}
	return out
}
