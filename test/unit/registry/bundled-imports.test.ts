/**
 * The bundled components are examples an author copies: each imports only "tinyhost" (and Node's
 * built-ins), as a component file loaded at run time must (src/loader/runtime-files.ts
 * resolves only "tinyhost" and "typebox").
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { listComponentFiles } from "../../../src/runtime/registry/files.ts";

const dir = join(import.meta.dir, "../../../components");

test('every bundled component imports only "tinyhost" or node: built-ins', () => {
  const transpiler = new Bun.Transpiler({ loader: "ts" });
  const offenders: string[] = [];
  for (const rel of listComponentFiles(dir)) {
    for (const i of transpiler.scanImports(readFileSync(join(dir, rel), "utf8"))) {
      if (i.path !== "tinyhost" && !i.path.startsWith("node:")) offenders.push(`${rel}: ${i.path}`);
    }
  }
  expect(offenders).toEqual([]);
});
