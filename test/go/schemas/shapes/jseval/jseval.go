// Package jseval declares the port types of js-module `eval` (component `js_eval`), read from
// tiny-systems/modules js-module/components/eval/eval.go @4675c48 / @7e513b5 (the same port types
// in both): Go type names, JSON names and schema tags as there, including the `Description`
// (capital D) tag on Script.Name and the `prompt` tag on Request.InputData that the real struct
// carries.
package jseval

type Context any
type InputData any
type OutputData any

type Script struct {
	Name    string `json:"name" required:"true" title:"File name" Description:"e.g. utils.js"`
	Content string `json:"content" required:"true" language:"javascript" title:"Javascript code" format:"code"`
}

// ScriptItem is a distinct named type so the SDK gives the modules' items their own $def.
type ScriptItem Script

type Settings struct {
	EnableErrorPort bool         `json:"enableErrorPort" required:"true" title:"Enable Error Port" description:"If error happen, error port will emit an error message" tab:"Settings"`
	InputData       InputData    `json:"inputData" configurable:"true" title:"Input object" description:"Schema and example data of the script's input. Downstream edges feeding this node must produce this shape." tab:"Settings"`
	OutputData      OutputData   `json:"outputData" required:"true" configurable:"true" title:"Output object" description:"Schema and example data of the script's output. REQUIRED: downstream edges from this node are validated against this shape, so leaving it empty makes every edge out of this node unverifiable. Set it to an example of exactly what your script returns." tab:"Settings"`
	Script          Script       `json:"script" required:"true" title:"Script" description:"Full ECMAScript 5.1 support. Experimental ESM support. Please CDN only ESM modules" tab:"Main script"`
	Modules         []ScriptItem `json:"modules" required:"true" title:"Modules" description:"Full ECMAScript 5.1 support. Experimental ESM support. Please CDN only ESM modules." uniqueItems:"true" tab:"Includes"`
	TimeoutSeconds  int          `json:"timeoutSeconds" title:"Timeout (seconds)" description:"Wall-clock cap for one invocation; a script that exceeds it (e.g. an accidental infinite loop) is interrupted and fails the hop. 0 = default 30." tab:"Settings"`
}

type Error struct {
	Context Context `json:"context"`
	Error   string  `json:"error"`
}

type Request struct {
	Context   Context   `json:"context,omitempty" configurable:"true" title:"Context" description:"Arbitrary message to be send alongside with rendered content"`
	InputData InputData `json:"inputData,omitempty" configurable:"true" title:"Input data" description:"Input data" prompt:"generate JSON schema"`
}

type Response struct {
	Context    Context    `json:"context"`
	OutputData OutputData `json:"outputData"`
}
