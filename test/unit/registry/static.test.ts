import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { GENERATED_HEADER, listComponentFiles, renderStaticRegistry } from "../../../src/runtime/registry/index.ts";
import { registryFromModules, type StaticComponentModule } from "../../../src/runtime/registry/static.ts";

const root = join(import.meta.dir, "../../..");
const valid = join(import.meta.dir, "../../fixtures/components-valid");
const tmp = mkdtempSync(join(tmpdir(), "tinyhost-registry-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function filesOf(dir: string) {
  return listComponentFiles(dir).map((rel) => ({ absPath: join(dir, rel), source: relative(root, join(dir, rel)) }));
}

test("the generated registry statically imports every component file and nothing else", () => {
  const out = join(tmp, "a.generated.ts");
  const text = renderStaticRegistry(filesOf(valid), out);
  expect(text.startsWith(GENERATED_HEADER)).toBe(true);
  const imported = [...text.matchAll(/^import \* as c\d+ from "(.+)";$/gm)].map((m) => join(tmp, m[1]!));
  expect(imported).toEqual([join(valid, "echo.ts"), join(valid, "nested/deep/upper.ts")]);
  expect(text).not.toContain("import(");
});

test("the generated module loads into the same registry as discovery", async () => {
  const out = join(tmp, "b.generated.ts");
  writeFileSync(out, renderStaticRegistry(filesOf(valid), out));
  const mod = (await import(out)) as { staticComponents: StaticComponentModule[] };
  const registry = registryFromModules(mod.staticComponents);
  expect(registry.list().map((c) => c.info.name)).toEqual(["echo", "upper"]);
  expect(registry.source("upper")).toBe("test/fixtures/components-valid/nested/deep/upper.ts");
});

test("the static registry applies the same duplicate check as discovery", async () => {
  const dup = join(import.meta.dir, "../../fixtures/components-duplicate");
  const out = join(tmp, "c.generated.ts");
  writeFileSync(out, renderStaticRegistry(filesOf(dup), out));
  const mod = (await import(out)) as { staticComponents: StaticComponentModule[] };
  expect(() => registryFromModules(mod.staticComponents)).toThrow(/defined twice/);
});
