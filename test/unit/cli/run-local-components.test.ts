import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { localOptions, parseRunLocalArgs } from "../../../src/cli/commands/run-local.ts";
import { LocalHost } from "../../../src/local/host.ts";
import { loadStaticRegistry } from "../../../src/loader/static.ts";

const FIXTURE = resolve(import.meta.dir, "../../fixtures/components-valid");
const hosts: LocalHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

test("from source, run --local --components <dir> adds the directory's files to the bundled set, and the start line says how many from where", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tinyhost-components-"));
  dirs.push(dir);
  const flags = parseRunLocalArgs(["--local", dir, "--components", FIXTURE, "--no-console", "--no-state", "--no-watch"], {});
  if (typeof flags === "string") throw new Error(flags);
  const lines: string[] = [];
  const host = await LocalHost.start({ ...(await localOptions(flags)), report: (l) => lines.push(l) });
  hosts.push(host);
  const bundled = loadStaticRegistry().list().length;
  expect(host.scheduler.installed("signal")).toBeDefined(); // bundled
  expect(host.scheduler.installed("echo")).toBeDefined(); // from the directory
  expect(lines[0]).toMatch(new RegExp(`components ${bundled} bundled \\+ \\d+ from .*components-valid$`));
});
