/**
 * Static checks of the Dockerfile. No Docker engine runs here and hadolint installs from neither
 * Debian (no package) nor npm (the wrappers download a binary at install time), so this test
 * parses the Dockerfile itself and asserts the rules we want from it — the relevant hadolint
 * rules are named (DL3006/DL3007 pinned tags, DL3015 --no-install-recommends, DL3020 COPY not
 * ADD, DL3025 JSON ENTRYPOINT, DL3002 non-root last USER) plus ours: multi-stage, Bun version =
 * package.json's, locked install, only the binary in the final stage, entrypoint = the path the
 * Deployment runs, no HEALTHCHECK (Kubernetes probes do that job).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { MODULE_BINARY, MODULE_UID } from "../../src/provision/index.ts";
import { parseInstructions, parseStages } from "../../scripts/image/dockerfile.ts";
import { imageEnv } from "../../bench/lib/image-env.ts";

const TEXT = readFileSync(resolve(import.meta.dir, "../../Dockerfile"), "utf8");
const INSTRUCTIONS = parseInstructions(TEXT);
const STAGES = parseStages(INSTRUCTIONS);
const FINAL = STAGES.at(-1)!;
const BUILD = STAGES.find((s) => s.image.startsWith("oven/bun:"));

function imageTag(image: string): string | undefined {
  const at = image.lastIndexOf(":");
  return at > 0 && !image.slice(at + 1).includes("/") ? image.slice(at + 1) : undefined;
}

describe("Dockerfile", () => {
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
    expect(parseStages(ins).map((s) => [s.image, s.name])).toEqual([["a:1.0", "one"], ["b:2.0", undefined]]);
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
