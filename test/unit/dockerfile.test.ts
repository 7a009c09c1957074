/**
 * Static checks of the Dockerfile (test/integration/image.test.ts builds and runs it). hadolint
 * installs from neither Debian (no package) nor npm (the wrappers download a binary at install
 * time), so this test parses the Dockerfile itself and asserts the rules we want from it — the
 * relevant hadolint rules are named (DL3006/DL3007 pinned tags, DL3015 --no-install-recommends,
 * DL3020 COPY not ADD, DL3025 JSON ENTRYPOINT, DL3002 non-root last USER) plus ours: base images
 * as build arguments with the public images as defaults, multi-stage, Bun version =
 * package.json's, locked install, the build stage copies every file the binary's sources import,
 * only the binary in the final stage, entrypoint = the path the Deployment runs, no HEALTHCHECK
 * (Kubernetes probes do that job).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { MODULE_BINARY, MODULE_UID } from "../../src/provision/index.ts";
import { globalArgs, parseInstructions, parseStages, substituteArgs } from "../../scripts/image/dockerfile.ts";
import { BASE_IMAGE_ARG, BUN_IMAGE_ARG, baseImageDefaults } from "../../scripts/image/module-image.ts";
import { ENTRYPOINTS } from "../../scripts/build.ts";
import { imageEnv } from "../../bench/lib/image-env.ts";

const ROOT = resolve(import.meta.dir, "../..");
const TEXT = readFileSync(resolve(ROOT, "Dockerfile"), "utf8");
const INSTRUCTIONS = parseInstructions(TEXT);
const STAGES = parseStages(INSTRUCTIONS);
const FINAL = STAGES.at(-1)!;
const BUILD = STAGES.find((s) => s.image.startsWith("oven/bun:"));

function imageTag(image: string): string | undefined {
  const at = image.lastIndexOf(":");
  return at > 0 && !image.slice(at + 1).includes("/") ? image.slice(at + 1) : undefined;
}

/**
 * Every repository file reachable by relative (or absolute) static and dynamic imports from
 * `entries`, as paths relative to the root; bare package imports (node_modules) are not followed.
 */
function importedFiles(entries: readonly string[]): Set<string> {
  const transpiler = new Bun.Transpiler({ loader: "ts" });
  const seen = new Set<string>();
  const queue = entries.map((e) => resolve(ROOT, e));
  while (queue.length > 0) {
    const file = queue.pop()!;
    const rel = relative(ROOT, file);
    if (seen.has(rel)) continue;
    seen.add(rel);
    if (!/\.(ts|tsx|js|mjs)$/.test(file)) continue;
    // A shebang line is not TypeScript to the transpiler (Bun strips it when running the file).
    const code = readFileSync(file, "utf8").replace(/^#!.*/, "");
    for (const { path } of transpiler.scanImports(code)) {
      if (!path.startsWith(".") && !path.startsWith("/")) continue;
      const target = resolve(dirname(file), path);
      if (!existsSync(target)) throw new Error(`${rel} imports ${path}, which does not exist`);
      queue.push(target);
    }
  }
  return seen;
}

describe("Dockerfile", () => {
  test("takes its two base images as build arguments whose defaults are the public images a user builds with", () => {
    expect([...globalArgs(INSTRUCTIONS).keys()]).toEqual([BUN_IMAGE_ARG, BASE_IMAGE_ARG]);
    expect(STAGES.map((s) => s.from)).toEqual([`\${${BUN_IMAGE_ARG}}`, `\${${BASE_IMAGE_ARG}}`]);
    const defaults = baseImageDefaults(TEXT);
    expect(defaults.bunImage).toBe(`oven/bun:${pkg.devDependencies.bun}-debian`);
    expect(defaults.baseImage).toMatch(/^debian:12\.\d+-slim$/);
    // What npm run image builds in their place: Bun of package.json's version on Debian 12.
    expect(defaults.bunVersion).toBe(pkg.devDependencies.bun);
    expect(defaults.suite).toBe("bookworm");
    expect(parseStages(INSTRUCTIONS, { [BUN_IMAGE_ARG]: "localhost/b:1", [BASE_IMAGE_ARG]: "localhost/d:2" }).map((s) => s.image)).toEqual([
      "localhost/b:1",
      "localhost/d:2",
    ]);
  });

  test("copies into the build stage every repository file the binary's sources import", () => {
    const copied = BUILD!.instructions.filter((i) => i.keyword === "COPY" && !i.args.startsWith("--from")).flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    const covered = (file: string) => copied.some((src) => file === src || file.startsWith(`${src.replace(/\/$/, "")}/`));
    const files = importedFiles([...ENTRYPOINTS, "scripts/build.ts", "scripts/gen-registry.ts"]);
    expect(files.size).toBeGreaterThan(100);
    expect([...files].filter((f) => !covered(f))).toEqual([]);
  });

  test("is multi-stage, the final stage built FROM a base image", () => {
    expect(STAGES.length).toBeGreaterThanOrEqual(2);
    expect(STAGES.map((s) => s.name)).not.toContain(FINAL.image);
  });

  test("pins every base image to a versioned tag, never latest (DL3006, DL3007)", () => {
    const stageNames = new Set(STAGES.map((s) => s.name));
    for (const stage of STAGES.filter((s) => !stageNames.has(s.image))) {
      const tag = imageTag(stage.image);
      expect(tag, `FROM ${stage.image} has no tag`).toBeDefined();
      expect(tag).not.toBe("latest");
      expect(tag!, `FROM ${stage.image}: the tag names no version`).toMatch(/\d+\.\d+/);
    }
  });

  test("builds with the Bun version package.json pins", () => {
    expect(BUILD, "no oven/bun build stage").toBeDefined();
    expect(imageTag(BUILD!.image)!.split("-")[0]).toBe(pkg.devDependencies.bun);
  });

  test("installs exactly the lockfile (npm ci or bun --frozen-lockfile) before building with scripts/build.ts", () => {
    const copies = BUILD!.instructions.filter((i) => i.keyword === "COPY").map((i) => i.args);
    expect(copies.some((c) => c.includes("package-lock.json"))).toBe(true);
    const runs = BUILD!.instructions.filter((i) => i.keyword === "RUN").map((i) => i.args);
    const install = runs.findIndex((r) => /\bnpm ci\b/.test(r) || /\bbun (install|i)\b.*--frozen-lockfile/.test(r) || /\bbun ci\b/.test(r));
    const build = runs.findIndex((r) => /\bbun (run )?scripts\/build\.ts\b/.test(r));
    expect(install, "no locked install").toBeGreaterThanOrEqual(0);
    expect(build, "no bun scripts/build.ts").toBeGreaterThan(install);
  });

  test("copies only the compiled binary into the final stage, to the path the Deployment runs", () => {
    const copies = FINAL.instructions.filter((i) => i.keyword === "COPY" || i.keyword === "ADD");
    expect(copies.length).toBe(1);
    const parts = copies[0]!.args.split(/\s+/);
    expect(parts[0]).toBe(`--from=${BUILD!.name}`);
    expect(parts.slice(1)).toEqual(["/src/dist/tinyhost", MODULE_BINARY]);
  });

  test("runs as uid 65532 in the final stage (DL3002)", () => {
    const users = FINAL.instructions.filter((i) => i.keyword === "USER");
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)!.args.split(":")[0]).toBe(String(MODULE_UID));
  });

  test("tells JavaScriptCore half the chart's 128Mi as its RAM size, leaving room for the binary's pages (docs/operations.md §8)", () => {
    const env = FINAL.instructions.filter((i) => i.keyword === "ENV").map((i) => i.args);
    expect(env).toContain(`BUN_JSC_forceRAMSize=${64 * 1024 * 1024}`);
  });

  test("turns JavaScriptCore's optimizing JIT tiers off, which kept VmRSS over 100 MiB at 1,000 nodes (docs/operations.md §8)", () => {
    const env = FINAL.instructions.filter((i) => i.keyword === "ENV").map((i) => i.args);
    expect(env).toContain("BUN_JSC_useDFGJIT=0");
    expect(imageEnv().BUN_JSC_useDFGJIT).toBe("0");
  });

  test("enters `tinyhost run` in exec form (DL3025)", () => {
    const entry = FINAL.instructions.filter((i) => i.keyword === "ENTRYPOINT");
    expect(entry.length).toBe(1);
    expect(JSON.parse(entry[0]!.args)).toEqual([MODULE_BINARY, "run"]);
    for (const cmd of FINAL.instructions.filter((i) => i.keyword === "CMD")) expect(() => JSON.parse(cmd.args)).not.toThrow();
  });

  test("has no HEALTHCHECK (Kubernetes probes /healthz and /readyz)", () => {
    expect(INSTRUCTIONS.filter((i) => i.keyword === "HEALTHCHECK")).toEqual([]);
  });

  test("uses COPY, never ADD (DL3020)", () => {
    expect(INSTRUCTIONS.filter((i) => i.keyword === "ADD")).toEqual([]);
  });

  test("installs apt packages only with --no-install-recommends (DL3015)", () => {
    for (const run of INSTRUCTIONS.filter((i) => i.keyword === "RUN")) {
      for (const command of run.args.split(/&&|;/)) {
        if (/\bapt-get\b.*\binstall\b/.test(command)) expect(command, `line ${run.line}`).toContain("--no-install-recommends");
      }
    }
  });
});

describe("Dockerfile parser (used by the checks above)", () => {
  test("joins continuations, skips comments, keeps stage names", () => {
    const ins = parseInstructions("# c\nFROM a:1.0 AS one\nRUN x \\\n  # inner\n  && y\nfrom b:2.0\n");
    expect(ins.map((i) => [i.keyword, i.args, i.line])).toEqual([
      ["FROM", "a:1.0 AS one", 2],
      ["RUN", "x    && y", 3],
      ["FROM", "b:2.0", 6],
    ]);
    expect(parseStages(ins).map((s) => [s.image, s.name])).toEqual([
      ["a:1.0", "one"],
      ["b:2.0", undefined],
    ]);
  });

  test("resolves FROM from the ARGs before the first FROM, --build-arg values over defaults", () => {
    const ins = parseInstructions('ARG A=a:1.0\nARG B="b:2.0"\nARG C\nFROM ${A} AS one\nARG A=ignored\nFROM $B\n');
    expect([...globalArgs(ins)]).toEqual([
      ["A", "a:1.0"],
      ["B", "b:2.0"],
      ["C", undefined],
    ]);
    expect(parseStages(ins).map((s) => [s.from, s.image])).toEqual([
      ["${A}", "a:1.0"],
      ["$B", "b:2.0"],
    ]);
    expect(parseStages(ins, { B: "local/b:9", UNDECLARED: "x" }).map((s) => s.image)).toEqual(["a:1.0", "local/b:9"]);
    expect(() => parseStages(parseInstructions("ARG C\nFROM ${C}\n"))).toThrow("build argument C has no value");
    expect(() => globalArgs(parseInstructions("ARG 1bad=x\nFROM a\n"))).toThrow("line 1: ARG 1bad=x");
    expect(substituteArgs("x-${A}-$A", new Map([["A", "1"]]))).toBe("x-1-1");
  });
});

describe("the image's ENV as bench/memory.ts reads it (bench/lib/image-env.ts)", () => {
  test("is the final stage's ENV of this Dockerfile", () => {
    expect(imageEnv()).toEqual(Object.fromEntries(FINAL.instructions.filter((i) => i.keyword === "ENV").map((i) => i.args.split("=", 2) as [string, string])));
    expect(imageEnv().BUN_JSC_forceRAMSize).toBe(String(64 * 1024 * 1024));
  });

  test("reads both ENV forms, quotes and continuations; earlier stages do not count", () => {
    const text = 'FROM a\nENV X=1\nFROM b\nENV A="x y" B=2 \\\n  # inner\n  C=3\nENV D some value\nENV B=3\n';
    expect(imageEnv(text)).toEqual({ A: "x y", B: "3", C: "3", D: "some value" });
    expect(() => imageEnv("FROM b\nENV P=$HOME/x\n")).toThrow(/line 2: ENV P=\$HOME\/x: variable references/);
    expect(() => imageEnv("FROM b\nENV LONELY\n")).toThrow(/ENV LONELY: no value/);
  });
});
