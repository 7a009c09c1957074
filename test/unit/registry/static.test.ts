import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { GENERATED_HEADER, renderStaticRegistry } from "../../../src/loader/generate.ts";
import { listComponentFiles, type RegistryError } from "../../../src/runtime/registry/index.ts";
import { registryFromModules, type StaticComponentModule } from "../../../src/loader/static.ts";
import { COMPONENT_BRAND, defineComponent, target, Type } from "../../../src/sdk/index.ts";

const root = join(import.meta.dir, "../../..");
const valid = join(import.meta.dir, "../../fixtures/components-valid");
const tmp = mkdtempSync(join(tmpdir(), "tinyhost-registry-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function filesOf(dir: string) {
  return listComponentFiles(dir).map((rel) => ({ absPath: join(dir, rel), source: relative(root, join(dir, rel)) }));
}

test("the generated registry requires every component file by a literal path and nothing else", () => {
  const out = join(tmp, "a.generated.ts");
  const text = renderStaticRegistry(filesOf(valid), out);
  expect(text.startsWith(GENERATED_HEADER)).toBe(true);
  const imported = [...text.matchAll(/require\("(.+?)"\)/g)].map((m) => join(tmp, m[1]!));
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

test("importing the generated module evaluates no component until the registry is loaded", async () => {
  const dir = join(tmp, "lazy");
  mkdirSync(dir);
  writeFileSync(join(dir, "boom.ts"), 'throw new Error("boom at import");\nexport default 1;\n');
  const out = join(tmp, "d.generated.ts");
  writeFileSync(out, renderStaticRegistry(filesOf(dir), out));
  const mod = (await import(out)) as { staticComponents: StaticComponentModule[] };
  expect(mod.staticComponents.map((r) => r.source)).toEqual([relative(root, join(dir, "boom.ts"))]);
  let err: RegistryError | undefined;
  try {
    registryFromModules(mod.staticComponents);
  } catch (e) {
    err = e as RegistryError;
  }
  expect(err?.code).toBe("COMPONENT_IMPORT_FAILED");
  expect(err?.files).toEqual([relative(root, join(dir, "boom.ts"))]);
  expect(err?.message).toContain("boom at import");
});

test("a static row rejected by defineComponent at load is INVALID_COMPONENT for that file", () => {
  const rejected = Object.assign(new Error("info.name must be a non-empty string"), { code: "INVALID_COMPONENT" });
  const rows: StaticComponentModule[] = [
    {
      source: "components/nameless.ts",
      load: () => {
        throw rejected;
      },
    },
  ];
  expect(() => registryFromModules(rows)).toThrow(expect.objectContaining({ code: "INVALID_COMPONENT", files: ["components/nameless.ts"] }));
});

test("a definition that bypassed defineComponent's name check (another SDK copy) is still refused by name", () => {
  const good = defineComponent({ info: { name: "good", description: "", info: "" }, ports: () => [target("in", Type.Object({}))], handle: () => undefined });
  const foreign = { ...good, [COMPONENT_BRAND]: true as const, info: { ...good.info, name: "my.comp" } };
  const rows: StaticComponentModule[] = [{ source: "components/foreign.ts", load: () => ({ default: foreign }) }];
  expect(() => registryFromModules(rows)).toThrow(expect.objectContaining({ code: "INVALID_COMPONENT", files: ["components/foreign.ts"] }));
  expect(() => registryFromModules(rows)).toThrow('components/foreign.ts: info.name "my.comp" contains "."');
});
