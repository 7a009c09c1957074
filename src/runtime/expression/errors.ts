/**
 * Errors of the expression evaluator (runtime-spec §2.11).
 *
 * Two public classes: a syntax error raised once when a configuration is compiled, and an
 * evaluation error raised (or reported through a callback) on a hop. Both name the expression
 * as `{{…}}` so a log line points at the edge configuration text the user wrote.
 */
import { TinyError } from "../../core/errors.ts";

/** Renders an expression the way it appears in an edge configuration. */
function quoted(expression: string): string {
  return JSON.stringify(`{{${expression}}}`);
}

/** Adds the configuration field, when known, to an error message. */
function inField(field: string | undefined): string {
  return field === undefined ? "" : ` (in field ${JSON.stringify(field === "" ? "$" : field)})`;
}

/**
 * An expression that cannot be parsed: bad token, unbalanced bracket, unknown function, wrong
 * argument count. Thrown by `compileExpression` / `compileTemplate` at compile time, never per hop.
 *
 * Message shape: `expression "{{$.a +}}": unexpected end of expression at position 5`, where the
 * position is the 0-based offset into the expression text between the braces (trimmed), plus
 * ` (in field "conditions[0].condition")` when it came from a template.
 */
export class ExpressionSyntaxError extends TinyError<"EXPRESSION_SYNTAX"> {
  /** The expression text between the braces, trimmed. */
  readonly expression: string;
  /** 0-based offset into `expression` where parsing failed. */
  readonly position: number;
  /** What went wrong, without the expression prefix (e.g. `unexpected token ")"`). */
  readonly reason: string;
  /** Path of the configuration field holding the expression (`body`, `items[2].url`), if known. */
  readonly field: string | undefined;

  /**
   * @param expression expression text (trimmed, without braces)
   * @param position 0-based offset into `expression`
   * @param reason short description, e.g. `unexpected end of expression`
   * @param field configuration field path, when compiled from a template
   */
  constructor(expression: string, position: number, reason: string, field?: string) {
    super("EXPRESSION_SYNTAX", `expression ${quoted(expression)}: ${reason} at position ${position}${inField(field)}`);
    this.name = "ExpressionSyntaxError";
    this.expression = expression;
    this.position = position;
    this.reason = reason;
    this.field = field;
  }

  /** The same error, annotated with the configuration field it was found in. */
  withField(field: string): ExpressionSyntaxError {
    return new ExpressionSyntaxError(this.expression, this.position, this.reason, field);
  }
}

/**
 * An expression that parsed but failed on a payload (e.g. `null + 1`, division by zero, a
 * function given the wrong type). A missing JSONPath is NOT an error: it yields null
 * (runtime-spec §2.11).
 *
 * Message shape: `expression "{{$.a + 1}}": cannot apply "+" to null and number`.
 */
export class ExpressionEvalError extends TinyError<"EXPRESSION_EVAL"> {
  /** The expression text between the braces, trimmed. */
  readonly expression: string;
  /** What went wrong, without the expression prefix. */
  readonly reason: string;
  /** Path of the configuration field holding the expression, if evaluated from a template. */
  readonly field: string | undefined;

  /**
   * @param expression expression text (trimmed, without braces)
   * @param reason short description of the failure
   * @param field configuration field path, when evaluated from a template
   */
  constructor(expression: string, reason: string, field?: string) {
    super("EXPRESSION_EVAL", `expression ${quoted(expression)}: ${reason}${inField(field)}`);
    this.name = "ExpressionEvalError";
    this.expression = expression;
    this.reason = reason;
    this.field = field;
  }

  /** The same error, annotated with the configuration field it was evaluated for. */
  withField(field: string): ExpressionEvalError {
    return new ExpressionEvalError(this.expression, this.reason, field);
  }
}

/**
 * Internal: thrown by operators and functions while evaluating; carries only the reason.
 * `CompiledExpression.evaluate` turns it into an {@link ExpressionEvalError} naming the expression.
 */
export class EvalFailure extends TinyError<"EXPRESSION_EVAL_FAILURE"> {
  /** @param reason short description of the failure */
  constructor(reason: string) {
    super("EXPRESSION_EVAL_FAILURE", reason);
    this.name = "EvalFailure";
  }
}

/**
 * A whole-string expression evaluated to NaN or ±Infinity, which JSON cannot carry: Go fails the
 * hop when it encodes the evaluated configuration (`json: unsupported value: NaN`), so the
 * template throws this instead of returning the number. Inside an interpolated string the
 * number prints as text (`NaN`, `+Inf`, `-Inf`) and nothing fails, as in Go.
 */
export class NonFiniteNumberError extends TinyError<"EXPRESSION_NON_FINITE"> {
  /** Configuration field path of the expression. */
  readonly field: string;
  /** @param field the field path; @param value the number (NaN, Infinity or -Infinity) */
  constructor(field: string, value: number) {
    const shown = Number.isNaN(value) ? "NaN" : value > 0 ? "+Inf" : "-Inf";
    super("EXPRESSION_NON_FINITE", `field ${JSON.stringify(field === "" ? "$" : field)} evaluated to ${shown}, which JSON cannot carry`);
    this.field = field;
  }
}
