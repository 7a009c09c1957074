/**
 * One timer for the whole codebase (src/core/timer.ts): a `setTimeout`/`setInterval` anywhere else
 * must take a constant delay (a number, or an UPPER_CASE constant, alone or as a `Math.min` bound),
 * or be a reviewed internal delay listed below with why it cannot come from a user or a message.
 * JavaScript turns a delay above 2^31−1 ms into 1 ms, so a user-controlled one would fire at once.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const ROOT = join(import.meta.dir, "../../..");

/** The primitive itself. */
const PRIMITIVE = "src/core/timer.ts";

/**
 * Internal delays reviewed by hand: `file` → delay expressions (source text) and why each is bounded
 * and set by no user or message. A new entry needs the same review.
 */
const REVIEWED: Record<string, Record<string, string>> = {
  "src/local/host.ts": {
    "Math.max(0, due - Date.now()) + 5": "due = a removal time at most REMOVE_GRACE_MS ahead",
  },
  "src/local/state-keeper.ts": {
    "Math.max(10, Math.min(60_000, keepMs / 4))": "capped at 60 s",
    "this.o.lockCheckMs ?? LOCK_CHECK_MS": "a test option; default a constant",
  },
  "src/local/watch.ts": { debounceMs: "file-watch debounce, a constant of the caller" },
  "src/local/state-file.ts": { "this.debounceMs": "state-file write coalescing, a constructor constant (200 ms)" },
  "src/local/repeat-limiter.ts": { ms: "the summary window, a constant of the caller" },
};

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) sourceFiles(p, out);
    else if (e.name.endsWith(".ts") && !e.name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

const CONSTANT = /^[A-Z][A-Z0-9_]*$/;

/** A delay the code fixes: a number, an UPPER_CASE constant (or a property of one), or `Math.min` with one such bound. */
function isConstant(e: ts.Expression): boolean {
  if (ts.isParenthesizedExpression(e)) return isConstant(e.expression);
  if (ts.isNumericLiteral(e)) return Number(e.text.replaceAll("_", "")) <= 2 ** 31 - 1;
  if (ts.isIdentifier(e)) return CONSTANT.test(e.text);
  if (ts.isPropertyAccessExpression(e)) return CONSTANT.test(e.name.text) || (ts.isIdentifier(e.expression) && CONSTANT.test(e.expression.text));
  if (ts.isBinaryExpression(e) && [ts.SyntaxKind.AsteriskToken, ts.SyntaxKind.PlusToken].includes(e.operatorToken.kind))
    return isConstant(e.left) && isConstant(e.right);
  if (ts.isCallExpression(e) && e.expression.getText() === "Math.min") return e.arguments.some(isConstant);
  if (ts.isCallExpression(e) && e.expression.getText() === "Math.max") return e.arguments.every(isConstant);
  return false;
}

interface Site {
  file: string;
  line: number;
  call: string;
  delay: string;
}

/** Every `setTimeout`/`setInterval` call in `text` whose delay is not constant. */
export function variableTimerSites(file: string, text: string): Site[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Site[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isCallExpression(n)) {
      const callee = n.expression.getText(sf).replace(/^globalThis\./, "");
      if (callee === "setTimeout" || callee === "setInterval") {
        const delay = n.arguments[1];
        if (delay && !isConstant(delay))
          found.push({ file, line: sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1, call: callee, delay: delay.getText(sf) });
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

describe("one timer primitive", () => {
  test("no setTimeout/setInterval outside src/core/timer.ts takes a delay a user or a message could set", () => {
    const files = [...sourceFiles(join(ROOT, "src")), ...sourceFiles(join(ROOT, "components"))];
    const bad: string[] = [];
    for (const path of files) {
      const file = relative(ROOT, path);
      if (file === PRIMITIVE) continue;
      for (const s of variableTimerSites(file, readFileSync(path, "utf8"))) {
        if (REVIEWED[file]?.[s.delay] !== undefined) continue;
        bad.push(`${s.file}:${s.line} ${s.call}(…, ${s.delay}) — use startTimer/startInterval/sleepUnlessAborted (src/core/timer.ts)`);
      }
    }
    expect(bad).toEqual([]);
  });

  test("the check finds a bare setTimeout with a variable delay or a literal past 2^31−1 ms, and passes constant ones", () => {
    const text =
      "const LIMIT = 5; setTimeout(f, LIMIT); setTimeout(f, 100); setInterval(f, Math.min(x, LIMIT)); setTimeout(f, o.delayMs); globalThis.setInterval(f, settings.delay * 1000); setTimeout(f, 2 ** 40); setTimeout(f, 3_000_000_000);";
    expect(variableTimerSites("x.ts", text).map((s) => s.delay)).toEqual(["o.delayMs", "settings.delay * 1000", "2 ** 40", "3_000_000_000"]);
  });
});
