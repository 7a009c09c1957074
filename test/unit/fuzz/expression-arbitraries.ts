/**
 * Expression generators shared by the unit fuzzer (test/unit/fuzz/expressions.fuzz.test.ts) and the
 * differential fuzzer against the Go oracle (test/integration/expression-fuzz.test.ts). Functions
 * whose result changes between calls (`now`, `rand`, `randint`, and `RFC3339`, which gives the
 * current time for a missing argument) are left out, so both engines can be compared on one value.
 */
import fc from "fast-check";

/** Tokens of the expression language, joined at random: mostly malformed text that reaches past the lexer. */
export const TOKEN = fc.constantFrom(
  "$",
  ".",
  "..",
  "[",
  "]",
  "(",
  ")",
  ",",
  "*",
  "?",
  "@",
  ":",
  "'a'",
  '"b"',
  "1",
  "0",
  "-1",
  "2.5",
  "1e308",
  "true",
  "false",
  "null",
  "+",
  "-",
  "/",
  "%",
  "==",
  "!=",
  "<",
  "<=",
  ">",
  ">=",
  "&&",
  "||",
  "!",
  "=~",
  "'^a.*$'",
  " ",
  "name",
  "items",
  "length",
  "abs",
  "len",
  "avg",
  "sum",
  "max",
  "min",
  "round",
  "floor",
  "ceil",
  "size",
  "keys",
  "values",
  "not",
  "e",
  "pi",
  "b64decode",
);

/** 1–8 tokens joined without spaces. */
export const TOKEN_SOUP = fc.array(TOKEN, { minLength: 1, maxLength: 8 }).map((t) => t.join(""));

/** Members of test/conformance/default-payload.json (and a few it lacks). */
const FIELD = fc.constantFrom(
  "a",
  "b",
  "s",
  "n",
  "f",
  "neg",
  "zero",
  "big",
  "huge",
  "small",
  "t",
  "fl",
  "nul",
  "str_num",
  "empty_s",
  "sp",
  "arr",
  "one",
  "empty",
  "eo",
  "obj",
  "strs",
  "mixed",
  "items",
  "user",
  "name",
  "price",
  "quantity",
  "uni",
  "time",
  "missing",
  "0",
  "k",
  "tags",
);
const PATH = fc
  .array(
    fc.oneof(
      FIELD.map((f) => `.${f}`),
      fc.integer({ min: -2, max: 6 }).map((i) => `[${i}]`),
      fc.constantFrom("[*]", "..name", "..price", "[0:2]", "['name']", "[?(@.price > 10)]", ".length"),
    ),
    { maxLength: 3 },
  )
  .map((p) => `$${p.join("")}`);
const LITERAL = fc.oneof(
  fc.integer({ min: -5, max: 100 }).map(String),
  fc.constantFrom("2.5", "0.1", "1e3", "-0", "true", "false", "null", "'a'", "'hello'", "''", '"x"', "(1/0)", "(0.1+0.2)", "'2024-01-01T12:00:00Z'", "'1h'"),
);
const FUNCTION = fc.constantFrom(
  "abs",
  "len",
  "avg",
  "sum",
  "max",
  "min",
  "round",
  "floor",
  "ceil",
  "size",
  "keys",
  "values",
  "not",
  "b64decode",
  "b64encode",
  "lower",
  "upper",
  "trim",
  "string",
  "number",
  "int",
  "sqrt",
  "log",
  "exp",
  "first",
  "last",
  "reverse",
  "sort",
  "unique",
  "length",
  "isnull",
  "pow",
  "contains",
  "split",
  "join",
  "replace",
  "substr",
  "format",
  "date",
  "timestamp",
  "duration",
  "type",
  "index",
);
const OPERATOR = fc.constantFrom("+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "=~", "**", "^", "|");

/**
 * Well-formed expressions from the grammar (paths, literals, calls, unary and binary operators,
 * conditionals), every binary operation and conditional in parentheses: the two engines' known
 * parse differences (operator precedence, right-nested conditionals; docs/compatibility.md
 * "Expressions") cannot occur, so any other difference is one of meaning.
 */
export const PARENTHESIZED: fc.Arbitrary<string> = fc.letrec<{ e: string; t: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    tie("t"),
    fc.tuple(tie("t"), OPERATOR, tie("e")).map(([a, o, b]) => `(${a} ${o} ${b})`),
    fc.tuple(tie("t"), tie("e"), tie("e")).map(([c, a, b]) => `(${c} ? ${a} : ${b})`),
  ),
  t: fc.oneof(
    { depthSize: "small" },
    PATH,
    LITERAL,
    fc.tuple(FUNCTION, fc.array(tie("e"), { maxLength: 3 })).map(([f, args]) => `${f}(${args.join(", ")})`),
    tie("e").map((x) => `(${x})`),
    tie("t").map((x) => `not(${x})`),
  ),
})).e;
