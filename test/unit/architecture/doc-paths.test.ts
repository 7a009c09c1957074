/**
 * Every repo path a comment or a doc names exists, so a reader who follows one lands on a file.
 * The tree is read as it is now (files move; the rule stays): comments in the TypeScript of src/,
 * test/, components/, scripts/, bench/ and examples/; README.md and docs/**\/*.md.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const ROOT = resolve(import.meta.dir, "../../..");
const CODE_DIRS = ["src", "test", "components", "scripts", "bench", "examples"];
/** Fixtures describe their own small trees (a fixture's components/ is not the repo's). */
const SKIP_DIRS = new Set(["node_modules", "fixtures"]);
/** Notes on the Go runtime and other projects: the paths they name are those projects' files. */
const FOREIGN_DOCS = "docs/reference/";
/** Files the authoring tutorial has the reader write in their own project. */
const READER_FILES = new Set(["components/greet.ts", "components/x.ts", "test/unit/components/greet.test.ts"]);

/**
 * A repo path: one of this repo's top-level folders, then a file with an extension or a folder
 * with a trailing slash. Not preceded by a word, dot, slash or `$`, so `github.com/o/r/src/a.go`,
 * `../src/a.ts` and `${dir}/src/` are not taken for one.
 */
const REPO_PATH = /(?<![\w.\/$@-])(?:src|test|docs|components|scripts|bench|examples)\/[\w.\/-]*/g;
/** A document named by its upper-case file name alone (README.md, RESULTS.md): it exists somewhere. */
const DOC_NAME = /(?<![\w.\/-])[A-Z][A-Z0-9_-]*\.md\b/g;
/** A relative Markdown link target, without its #fragment. */
const MD_LINK = /\]\(([^)#\s]+)(?:#[^)]*)?\)/g;

/** Files under `dir` (repo-relative) whose names end with `ext`. */
function walk(dir: string, ext: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    if (SKIP_DIRS.has(name)) continue;
    const rel = `${dir}/${name}`;
    if (statSync(join(ROOT, rel)).isDirectory()) out.push(...walk(rel, ext));
    else if (name.endsWith(ext)) out.push(rel);
  }
  return out;
}

const K = ts.SyntaxKind;
/** Keywords after which `/` starts a regular expression, not a division. */
const REGEX_AFTER_WORD = new Set([
  K.ReturnKeyword,
  K.TypeOfKeyword,
  K.CaseKeyword,
  K.DoKeyword,
  K.ElseKeyword,
  K.InKeyword,
  K.OfKeyword,
  K.InstanceOfKeyword,
  K.NewKeyword,
  K.DeleteKeyword,
  K.VoidKeyword,
  K.ThrowKeyword,
  K.YieldKeyword,
  K.AwaitKeyword,
]);
/** Punctuation that ends a value, after which `/` divides. */
const VALUE_END = new Set([K.CloseParenToken, K.CloseBracketToken, K.CloseBraceToken, K.PlusPlusToken, K.MinusMinusToken]);

/**
 * Every comment of a TypeScript text with the line it starts on. TypeScript's scanner without its
 * parser (a full parse is ~8x slower): `/` and `}` are re-scanned as a regex or a template
 * continuation from the token before, as the parser would.
 */
function comments(text: string): { line: number; text: string }[] {
  const sc = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  let line = 1; // of `counted`, the scanner moves forward only
  let counted = 0;
  const lineAt = (pos: number) => {
    for (; counted < pos; counted++) if (text.charCodeAt(counted) === 10) line++;
    return line;
  };
  const out: { line: number; text: string }[] = [];
  const inTemplate: boolean[] = []; // one entry per open `{` or `${`
  let prev: ts.SyntaxKind | undefined;
  for (let t = sc.scan(); t !== K.EndOfFileToken; t = sc.scan()) {
    if (t === K.SingleLineCommentTrivia || t === K.MultiLineCommentTrivia) {
      out.push({ line: lineAt(sc.getTokenStart()), text: sc.getTokenText() });
      continue;
    }
    if (t === K.WhitespaceTrivia || t === K.NewLineTrivia || t === K.ShebangTrivia || t === K.ConflictMarkerTrivia) continue;
    if ((t === K.SlashToken || t === K.SlashEqualsToken) && regexAllowed(prev)) t = sc.reScanSlashToken();
    if (t === K.OpenBraceToken) inTemplate.push(false);
    else if (t === K.TemplateHead) inTemplate.push(true);
    else if (t === K.CloseBraceToken) {
      if (inTemplate.at(-1) === true) {
        t = sc.reScanTemplateToken(false);
        if (t === K.TemplateTail) inTemplate.pop();
      } else inTemplate.pop();
    }
    prev = t;
  }
  return out;
}

function regexAllowed(prev: ts.SyntaxKind | undefined): boolean {
  if (prev === undefined) return true;
  if (prev >= K.FirstPunctuation && prev <= K.LastPunctuation) return !VALUE_END.has(prev);
  return REGEX_AFTER_WORD.has(prev);
}

/** Upper-case .md names present anywhere in the repo (outside node_modules and dot folders). */
function docNames(dir = ""): Set<string> {
  const names = new Set<string>();
  for (const name of readdirSync(join(ROOT, dir))) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    const rel = dir ? `${dir}/${name}` : name;
    if (statSync(join(ROOT, rel)).isDirectory()) for (const n of docNames(rel)) names.add(n);
    else if (name.endsWith(".md")) names.add(name);
  }
  return names;
}

/** The repo paths and document names in one line of prose that name nothing in this repo. */
function missingIn(line: string, docs: Set<string>): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(REPO_PATH)) {
    const path = m[0].replace(/[.-]+$/, ""); // a sentence's full stop is not part of the path
    if (!path.endsWith("/") && !/\.[A-Za-z0-9]+$/.test(path)) continue; // a folder without its slash: too loose to check
    if (path.endsWith(".go") && !path.startsWith("test/go/")) continue; // the Go repos' files (ours are all in test/go/)
    if (READER_FILES.has(path)) continue;
    if (!existsSync(join(ROOT, path))) out.push(path);
  }
  for (const m of line.matchAll(DOC_NAME)) if (!docs.has(m[0])) out.push(m[0]);
  return out;
}

describe("repo paths named in comments and docs", () => {
  const docs = docNames();

  test("every repo path and document a TypeScript comment names exists", () => {
    const bad: string[] = [];
    for (const dir of CODE_DIRS)
      for (const file of walk(dir, ".ts"))
        for (const c of comments(readFileSync(join(ROOT, file), "utf8")))
          c.text.split("\n").forEach((l, i) => {
            for (const path of missingIn(l, docs)) bad.push(`${file}:${c.line + i}: ${path}`);
          });
    expect(bad).toEqual([]);
  }, 60_000); // reads every .ts file of six folders

  test("every repo path, document and relative link README.md and docs/ name exists", () => {
    const bad: string[] = [];
    for (const file of ["README.md", ...walk("docs", ".md")])
      readFileSync(join(ROOT, file), "utf8")
        .split("\n")
        .forEach((l, i) => {
          if (!file.startsWith(FOREIGN_DOCS)) for (const path of missingIn(l, docs)) bad.push(`${file}:${i + 1}: ${path}`);
          for (const m of l.replace(/`[^`]*`/g, "").matchAll(MD_LINK)) {
            const target = m[1]!;
            if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // https:, mailto:
            const abs = resolve(ROOT, dirname(file), target);
            if (!existsSync(abs)) bad.push(`${file}:${i + 1}: link ${target} (${relative(ROOT, abs)})`);
          }
        });
    expect(bad).toEqual([]);
  });
});
