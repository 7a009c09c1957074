/**
 * The expression evaluator: `{{…}}` templates in edge configurations, evaluated against the
 * incoming message on every hop (runtime-spec §2.2 step 5, §2.11). Compile once with
 * `compileTemplate`, evaluate per hop; deliberate differences from Go are listed in
 * docs/compatibility.md "Expressions".
 */
export { ExpressionEvalError, ExpressionSyntaxError } from "./errors.ts";
export { type CompiledExpression, compileExpression } from "./evaluate.ts";
export { type CompiledTemplate, compileTemplate, type ExpressionErrorHandler, isTemplateConstant } from "./template.ts";
