/**
 * Help texts say where components come from in the case they are shown in: from source or in the
 * compiled binary (src/cli/components-source.ts), matching what the commands then do.
 */
import { describe, expect, test } from "bun:test";
import { runClusterHelp } from "../../../src/cli/commands/run-cluster.ts";
import { runLocalUsage } from "../../../src/cli/commands/run-local.ts";
import { componentsUsage } from "../../../src/cli/commands/components.ts";
import { runUsage } from "../../../src/cli/commands/run.ts";

/** The help lines of `flag`, joined: the flag's line and its indented continuation lines. */
function flagHelp(text: string, flag: string): string {
  const lines = text.split("\n");
  const at = lines.findIndex((l) => l.trimStart().startsWith(flag));
  expect(at).toBeGreaterThanOrEqual(0);
  const out = [lines[at]!];
  for (const l of lines.slice(at + 1)) {
    if (!/^\s{20,}\S/.test(l)) break;
    out.push(l);
  }
  return out.join(" ").trim().replace(/\s+/g, " ");
}

describe("--components / --dir help", () => {
  test("cluster run from source: ./components, else the bundled set (what loadRegistry does)", () => {
    expect(flagHelp(runClusterHelp(false), "--components")).toBe(
      "--components <dir> load the component files in <dir> (default ./components; without it, tinyhost's bundled components)",
    );
  });

  test("cluster run in the compiled binary: the compiled-in set, never ./components", () => {
    const help = flagHelp(runClusterHelp(true), "--components");
    expect(help).toBe("--components <dir> load the component files in <dir> (default: the components compiled into this binary)");
    expect(help).not.toContain("./components");
  });

  test("local mode: --components adds to the bundled set in both cases; without it ./components from source, the compiled-in set in the binary", () => {
    expect(flagHelp(runLocalUsage(false), "--components")).toBe(
      "--components <dir> add the component files in <dir> to the bundled ones (a file replaces a bundled component of its name), applying edits live (without it: the files of ./components, edits live)",
    );
    expect(flagHelp(runLocalUsage(true), "--components")).toBe(
      "--components <dir> add the component files in <dir> to the bundled ones (a file replaces a bundled component of its name), applying edits live (without it: the components compiled into this binary)",
    );
  });

  test("tinyhost components: ./components from source, the compiled-in set in the binary", () => {
    expect(flagHelp(componentsUsage(false), "--dir")).toBe("--dir <dir> list the component files in <dir> (default ./components)");
    expect(flagHelp(componentsUsage(true), "--dir")).toBe("--dir <dir> list the component files in <dir> (default: the components compiled into this binary)");
  });

  test("`run --help` in this (source) process shows the source wording for both modes", async () => {
    const text = await runUsage();
    expect(text).toContain("without it, tinyhost's bundled components");
    expect(text).not.toContain("compiled into this binary");
  });
});
