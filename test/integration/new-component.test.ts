/**
 * `tinyhost new component <name>` as a developer runs it: in a project of its own (a temp dir with
 * this repository's tsconfig, package.json and bunfig, its `src/`, `examples/` and `node_modules/` linked),
 * the generated component and test pass the typecheck (`tsc --noEmit`, the project's linter) and
 * `bun test` exactly as written.
 */
import { afterAll, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { BUN } from "../support/bun-test.ts";

const ROOT = resolve(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "tinyhost-new-component-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(cmd: string[]): Promise<{ code: number; out: string }> {
  const p = Bun.spawn(cmd, { cwd: dir, stdout: "pipe", stderr: "pipe", env: { ...process.env, TINYHOST_LOG_LEVEL: "silent" } });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out: `${out}${err}` };
}

test("the generated component and its test pass the typecheck and the test as written", async () => {
  for (const f of ["tsconfig.json", "package.json", "bunfig.toml"]) if (existsSync(join(ROOT, f))) copyFileSync(join(ROOT, f), join(dir, f));
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  symlinkSync(join(ROOT, "src"), join(dir, "src"));
  symlinkSync(join(ROOT, "examples"), join(dir, "examples")); // the demo's built-in flow (src/cli/commands/demo.ts)

  const made = await run([BUN, join(ROOT, "src/cli/main.ts"), "new", "component", "shout_it"]);
  expect(made).toEqual({ code: 0, out: expect.stringContaining("wrote components/shout_it.ts\nwrote test/unit/components/shout_it.test.ts\n") });

  const typecheck = await run([join(ROOT, "node_modules/.bin/tsc"), "--noEmit", "-p", "."]);
  expect(typecheck).toEqual({ code: 0, out: "" });

  const tested = await run([BUN, "test", "test/unit/components/shout_it.test.ts"]);
  expect(tested.code).toBe(0);
  expect(tested.out).toContain(" 2 pass");
  expect(tested.out).toContain(" 0 fail");

  // And the component loads as local mode loads a component file.
  const listed = await run([BUN, join(ROOT, "src/cli/main.ts"), "components", "--components", "components"]);
  expect(listed.code).toBe(0);
  expect(listed.out).toContain("shout_it");
}, 400_000);
