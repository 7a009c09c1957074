import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { isComponentFile, listComponentFiles, RegistryError } from "../../../src/runtime/registry/index.ts";
import { discoverComponents } from "../../../src/loader/discover.ts";

const fixtures = join(import.meta.dir, "../../fixtures");
const fixture = (name: string) => join(fixtures, name);
const shown = (name: string, file: string) => relative(process.cwd(), join(fixture(name), file));

async function failure(dir: string): Promise<RegistryError> {
  try {
    await discoverComponents(dir);
  } catch (e) {
    if (e instanceof RegistryError) return e;
    throw new Error(`expected a RegistryError, got ${String(e)}`);
  }
  throw new Error(`expected discovery of ${dir} to fail`);
}

describe("discoverComponents", () => {
  test("a valid directory lists every component by name, nested folders included", async () => {
    const registry = await discoverComponents(fixture("components-valid"));
    expect(registry.list().map((c) => c.info.name)).toEqual(["echo", "upper"]);
    expect(registry.get("upper")?.info.description).toBe("Upper");
    expect(registry.get("missing")).toBeUndefined();
  });

  test("source names the file each component came from", async () => {
    const registry = await discoverComponents(fixture("components-valid"));
    expect(registry.source("echo")).toBe(shown("components-valid", "echo.ts"));
    expect(registry.source("upper")).toBe(shown("components-valid", "nested/deep/upper.ts"));
    expect(() => registry.source("missing")).toThrow(/no component named "missing"/);
  });

  test("test files, spec files and __tests__ folders are not imported", async () => {
    // Each of those fixture files lacks a default export: importing one would fail discovery.
    expect(listComponentFiles(fixture("components-valid"))).toEqual(["echo.ts", "nested/deep/upper.ts"]);
    expect((await discoverComponents(fixture("components-valid"))).list()).toHaveLength(2);
  });

  test("two components with one name fail with DUPLICATE_COMPONENT naming both files", async () => {
    const err = await failure(fixture("components-duplicate"));
    expect(err.code).toBe("DUPLICATE_COMPONENT");
    expect(err.files).toEqual([shown("components-duplicate", "a.ts"), shown("components-duplicate", "b.ts")]);
    expect(err.message).toContain('"same"');
  });

  test("a file without a default export fails with INVALID_COMPONENT naming the file", async () => {
    const err = await failure(fixture("components-no-default"));
    expect(err.code).toBe("INVALID_COMPONENT");
    expect(err.message).toContain(shown("components-no-default", "helper.ts"));
    expect(err.message).toContain("no default export");
  });

  test("a default export not made by defineComponent fails with INVALID_COMPONENT", async () => {
    const err = await failure(fixture("components-not-defined"));
    expect(err.code).toBe("INVALID_COMPONENT");
    expect(err.message).toContain("not created with defineComponent");
  });

  test("a branded definition with an empty name fails with INVALID_COMPONENT", async () => {
    const err = await failure(fixture("components-empty-name"));
    expect(err.code).toBe("INVALID_COMPONENT");
    expect(err.message).toContain("empty info.name");
  });

  test("defineComponent rejecting a spec during import is reported as INVALID_COMPONENT for that file", async () => {
    const err = await failure(fixture("components-define-throws"));
    expect(err.code).toBe("INVALID_COMPONENT");
    expect(err.files).toEqual([shown("components-define-throws", "nameless.ts")]);
    expect(err.message).toContain("info.name");
  });

  test("a component name that cannot survive node names fails with INVALID_COMPONENT naming the file, the value and the rule", async () => {
    const err = await failure(fixture("components-bad-name"));
    expect(err.code).toBe("INVALID_COMPONENT");
    expect(err.files).toEqual([shown("components-bad-name", "bad.ts")]);
    expect(err.message).toStartWith(`${shown("components-bad-name", "bad.ts")}: defineComponent: info.name "Bad Name!" has upper-case letters`);
    expect(err.message).toContain('lowercase letters and digits in words joined by single "_"');
  });

  test("an import that throws fails with COMPONENT_IMPORT_FAILED naming the file and the cause", async () => {
    const err = await failure(fixture("components-import-throws"));
    expect(err.code).toBe("COMPONENT_IMPORT_FAILED");
    expect(err.message).toContain(shown("components-import-throws", "broken.ts"));
    expect(err.message).toContain("database URL missing");
  });

  test("a syntax error fails with COMPONENT_IMPORT_FAILED naming the file, line and column", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tinyhost-discover-syntax-"));
    try {
      writeFileSync(join(dir, "broken.ts"), "export default {\n  a: 1,\n");
      const err = await failure(dir);
      expect(err.code).toBe("COMPONENT_IMPORT_FAILED");
      expect(err.files).toEqual([join(dir, "broken.ts")]);
      expect(err.message).toMatch(/broken\.ts:\d+:\d+: Expected .* but found end of file/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a missing directory fails with COMPONENTS_DIR_NOT_FOUND", async () => {
    const err = await failure(fixture("no-such-dir"));
    expect(err.code).toBe("COMPONENTS_DIR_NOT_FOUND");
    expect(err.message).toContain("no-such-dir");
  });
});

test("isComponentFile keeps .ts sources and drops tests, specs, declarations, __tests__ and node_modules", () => {
  const paths = ["a.ts", "x/y/b.ts", "a.test.ts", "a.spec.ts", "a.d.ts", "__tests__/h.ts", "x/__tests__/h.ts", "node_modules/p/i.ts", "a.js", "a.tsx"];
  expect(paths.filter(isComponentFile)).toEqual(["a.ts", "x/y/b.ts"]);
});
