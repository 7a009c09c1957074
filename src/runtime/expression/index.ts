/**
 * The expression evaluator: `{{…}}` templates in edge configurations, evaluated against the
 * incoming message on every hop (runtime-spec §2.2 step 5, §2.11) with the semantics of the Go
 * SDK's evaluator (ajson v0.1.6 + pkg/evaluator). Compile once with `compileTemplate`, evaluate
 * per hop; deliberate differences from Go are listed in docs/compatibility.md "Expressions".
 */
export { ExpressionEvalError, ExpressionSyntaxError, NonFiniteNumberError } from "./errors.ts";
export { type CompiledExpression, compileExpression } from "./evaluate.ts";
export { decodePayloadJson } from "./payload.ts";
export {
  type CompiledTemplate,
  compileTemplate,
  type ExpressionErrorHandler,
  fieldMatcher,
  isTemplateConstant,
  type TemplateOptions,
} from "./template.ts";
export { toValidText } from "../../golang/string.ts";
