/**
 * `text =~ pattern` (ajson math.go: `regexp.MatchString(pattern, text)`) on `re2js`, a pure-JS
 * port of RE2 with Go's `regexp/syntax` dialect (`\A`, `\z`, `[[:alpha:]]`, `(?P<x>…)`,
 * `\x{…}`, `(?i)`, no look-around, no back-references) and linear-time matching, so a user's
 * pattern cannot block the event loop. Chosen over JS RegExp by measurement (bench/expression.ts).
 *
 * Patterns are compiled once and cached: a constant pattern at compile time of the expression,
 * a computed one (`$.s =~ $.pattern`) in a bounded cache.
 */
import type { RE2JS } from "re2js";
import { EvalFailure } from "./errors.ts";
import { hasEscapes, toBytes } from "../../golang/string.ts";

/** A compiled pattern: `test(text)` is true when it matches anywhere in `text`. */
export interface CompiledRegex {
  readonly test: (text: string) => boolean;
}

/**
 * re2js (250 KB of bundled code) loads on the first `=~`: most flows never match a pattern, and
 * evaluating it cost every process start (start → ready). `require` keeps compiling
 * synchronous.
 */
let re2: typeof RE2JS | undefined;
const engine = (): typeof RE2JS => (re2 ??= (require("re2js") as typeof import("re2js")).RE2JS);

const cache = new Map<string, CompiledRegex>();
const CACHE_LIMIT = 256;

/**
 * Compiles a Go (RE2) pattern.
 * @throws EvalFailure `error parsing regexp: …` when RE2 rejects the pattern
 */
export function compileRegex(pattern: string): CompiledRegex {
  const hit = cache.get(pattern);
  if (hit !== undefined) return hit;
  let re: RE2JS;
  try {
    re = engine().compile(pattern);
  } catch (err) {
    throw new EvalFailure((err as Error).message); // re2js words it as Go does: `error parsing regexp: …`
  }
  const compiled: CompiledRegex = {
    // Text holding escaped bytes (src/golang/string.ts) is matched as the bytes Go would see.
    test: (text) => (hasEscapes(text) ? re.test(toBytes(text)) : re.test(text)),
  };
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(pattern, compiled);
  return compiled;
}
