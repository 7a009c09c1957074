/**
 * scripts/gen-registry.ts (run by `npm run build`): validates every component with dev discovery
 * before writing the tracked static registry, and writes it only when its content changes.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "../../..");
const valid = join(root, "test/fixtures/components-valid");
const tmp = mkdtempSync(join(tmpdir(), "tinyhost-gen-registry-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function gen(dir: string, out: string) {
  const r = Bun.spawnSync([process.execPath, "scripts/gen-registry.ts", "--dir", dir, "--out", out], { cwd: root, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, err: r.stderr.toString() };
}

function componentsDir(name: string, files: Record<string, string>): string {
  const dir = join(tmp, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

test("a component that throws on import fails generation naming the file and the cause, writing nothing", () => {
  const dir = componentsDir("throws", { "boom.ts": 'throw new Error("boom at import");\nexport default 1;\n' });
  const out = join(tmp, "throws.generated.ts");
  const r = gen(dir, out);
  expect(r.code).toBe(1);
  expect(r.err).toContain("COMPONENT_IMPORT_FAILED");
  expect(r.err).toMatch(/boom\.ts: import failed: boom at import/);
  expect(existsSync(out)).toBe(false);
});

test("a component without a default export fails generation with INVALID_COMPONENT and leaves the existing file untouched", () => {
  const dir = componentsDir("nodefault", { "plain.ts": "export const x = 1;\n" });
  const out = join(tmp, "nodefault.generated.ts");
  writeFileSync(out, "// previous\n");
  const r = gen(dir, out);
  expect(r.code).toBe(1);
  expect(r.err).toMatch(/INVALID_COMPONENT: .*plain\.ts: has no default export/);
  expect(readFileSync(out, "utf8")).toBe("// previous\n");
});

test("a component whose name breaks the name rule fails generation naming the file and the value, writing nothing", () => {
  const out = join(tmp, "badname.generated.ts");
  const r = gen(join(root, "test/fixtures/components-bad-name"), out);
  expect(r.code).toBe(1);
  expect(r.err).toContain('INVALID_COMPONENT: test/fixtures/components-bad-name/bad.ts: defineComponent: info.name "Bad Name!"');
  expect(r.err).toContain('(try "bad_name")');
  expect(existsSync(out)).toBe(false);
});

test("a syntax error is reported as file:line:col without the dynamic-import hint", () => {
  const dir = componentsDir("syntax", { "broken.ts": "export default {\n  a: 1,\n" });
  const out = join(tmp, "syntax.generated.ts");
  const r = gen(dir, out);
  expect(r.code).toBe(1);
  expect(r.err).toMatch(/broken\.ts:\d+:\d+: Expected .* but found end of file/);
  expect(r.err).not.toContain("dynamic import");
  expect(existsSync(out)).toBe(false);
});

test("valid components are written once; an unchanged registry is not rewritten", () => {
  const out = join(tmp, "valid.generated.ts");
  const first = gen(valid, out);
  expect(first.code).toBe(0);
  expect(first.err).toContain("wrote");
  const text = readFileSync(out, "utf8");
  expect(text).toContain("components-valid/echo.ts");
  const mtime = statSync(out).mtimeMs;
  const second = gen(valid, out);
  expect(second.code).toBe(0);
  expect(second.err).toContain("unchanged");
  expect(statSync(out).mtimeMs).toBe(mtime);
  expect(readFileSync(out, "utf8")).toBe(text);
}, 60_000); // two generator processes: seconds each on a busy machine, past bun's 5 s default
