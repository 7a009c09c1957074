/**
 * The import rule of docs/architecture.md "The layers": a file of `src/` imports only files of its
 * own floor and of the floors below it, every file stands on a floor, and no files import each
 * other in a circle. Static: reads the import specifiers of every source file (comments excluded).
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const ROOT = resolve(import.meta.dir, "../../..");
const SRC = join(ROOT, "src");
/** The bundled component files (they import `"tinyhost"`, the SDK). */
const COMPONENTS = join(ROOT, "components");
/** The bare specifier components use; it is src/sdk/index.ts (package.json "exports"). */
const PACKAGE = "tinyhost";
const PACKAGE_ENTRY = "sdk/index.ts";

/**
 * The floors drawn in the fenced `layers` block of `markdown`, bottom first: a row `| <folder> …`
 * names a floor (top floor first in the picture); a row whose first cell is empty continues the one above.
 * @throws Error when the block is missing or names a floor twice.
 */
function floorsOf(markdown: string): string[] {
  const block = /```layers\n([\s\S]*?)\n```/.exec(markdown)?.[1];
  if (block === undefined) throw new Error("docs/architecture.md has no ```layers block");
  const floors: string[] = [];
  for (const line of block.split("\n")) {
    const first = /^\|\s(\S+)/.exec(line)?.[1];
    if (first === undefined || first === "|") continue;
    if (floors.includes(first)) throw new Error(`floor ${first} is drawn twice`);
    floors.push(first);
  }
  return floors.reverse();
}

/** The floor of `file` (a path relative to src/): the longest floor folder that contains it. */
function floorOf(file: string, floors: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const f of floors) if (file.startsWith(f + "/") && (best === undefined || f.length > best.length)) best = f;
  return best;
}

/** Every .ts file under `dir`, relative to src/. */
function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (name.endsWith(".ts")) out.push(relative(SRC, path));
  }
  return out;
}

/**
 * The src/ files `file` imports (relative to src/): static and type imports, re-exports,
 * `import("…")` and `typeof import("…")`, `require`; `"tinyhost"` is the SDK's entry.
 */
function importsOf(file: string, text: string): string[] {
  const info = ts.preProcessFile(text, true, true);
  const out: string[] = [];
  for (const { fileName } of info.importedFiles) {
    if (fileName === PACKAGE) out.push(PACKAGE_ENTRY);
    else if (fileName.startsWith("./") || fileName.startsWith("../")) {
      const abs = resolve(dirname(join(SRC, file)), fileName);
      const target = relative(SRC, abs);
      if (!target.startsWith("..")) out.push(target);
      // A component file imports only "tinyhost": loading one stands on the SDK's floor.
      else if (relative(COMPONENTS, abs).split(/[\\/]/)[0] !== "..") out.push(PACKAGE_ENTRY);
    }
  }
  return out;
}

/** Imports that run up: "a.ts (floor x) → b.ts (floor y)". */
function upImports(graph: ReadonlyMap<string, readonly string[]>, floors: readonly string[]): string[] {
  const rank = (f: string) => floors.indexOf(floorOf(f, floors) ?? "");
  const out: string[] = [];
  for (const [file, targets] of graph) {
    for (const t of targets) {
      if (rank(t) > rank(file)) out.push(`src/${file} (${floorOf(file, floors)}) → src/${t} (${floorOf(t, floors)})`);
    }
  }
  return out;
}

/** The circles of imports between files (Tarjan's strongly connected components of two or more files). */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const circle: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      circle.push(w);
    } while (w !== v);
    if (circle.length > 1) found.push(circle.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const floors = floorsOf(readFileSync(join(ROOT, "docs/architecture.md"), "utf8"));
const files = sourceFiles(SRC);
const graph = new Map(files.map((f) => [f, importsOf(f, readFileSync(join(SRC, f), "utf8"))] as const));

describe("the layers of src/ (docs/architecture.md)", () => {
  test("the picture names core as the ground floor and sdk above the runtime, each floor an existing folder", () => {
    expect(floors[0]).toBe("core");
    expect(floors.indexOf("sdk")).toBeGreaterThan(floors.indexOf("runtime"));
    expect(floors.filter((f) => !statSync(join(SRC, f), { throwIfNoEntry: false })?.isDirectory())).toEqual([]);
  });

  test("every source file stands on a floor", () => {
    expect(files.length).toBeGreaterThan(300);
    expect(files.filter((f) => floorOf(f, floors) === undefined)).toEqual([]);
  });

  test("no import runs up the layers", () => {
    expect(upImports(graph, floors)).toEqual([]);
  });

  test("no files import each other in a circle", () => {
    expect(circles(graph).map((c) => c.join(" ↔ "))).toEqual([]);
  });

  test("the checks catch what they are for: an up-import, a comment that only looks like one, a circle", () => {
    const probe = new Map([
      [
        "core/a.ts",
        importsOf("core/a.ts", '// import { x } from "../sdk/b.ts"\nimport type { T } from "../runtime/c.ts";\nexport type U = typeof import("tinyhost");'),
      ],
      ["runtime/c.ts", importsOf("runtime/c.ts", 'export * from "./d.ts";')],
      ["runtime/d.ts", importsOf("runtime/d.ts", 'import "./c.ts";')],
    ]);
    expect(upImports(probe, floors)).toEqual(["src/core/a.ts (core) → src/runtime/c.ts (runtime)", "src/core/a.ts (core) → src/sdk/index.ts (sdk)"]);
    expect(circles(probe)).toEqual([["runtime/c.ts", "runtime/d.ts"]]);
  });
});
