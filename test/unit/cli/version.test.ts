/** `tinyhost version` and the SDK versions: the checked one is what the Go peer pins. */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { SDK_CHECKED_VERSION, SDK_VERSION } from "../../../src/core/version.ts";
import { commands } from "../../../src/cli/cli.ts";

test("SDK_CHECKED_VERSION is the Go SDK version test/go/go.mod pins; SDK_VERSION is not older", () => {
  const mod = readFileSync(resolve(import.meta.dir, "../../go/go.mod"), "utf8");
  expect(mod).toContain(`github.com/tiny-systems/module v${SDK_CHECKED_VERSION}\n`);
  const n = (v: string) => v.split(".").map(Number);
  const [a, b] = [n(SDK_VERSION), n(SDK_CHECKED_VERSION)];
  expect(a[0]! * 1e6 + a[1]! * 1e3 + a[2]!).toBeGreaterThanOrEqual(b[0]! * 1e6 + b[1]! * 1e3 + b[2]!);
});

test("tinyhost version states both", async () => {
  const lines: string[] = [];
  const log = console.log;
  console.log = (s: string) => lines.push(s);
  try {
    await commands.find((c) => c.name === "version")!.run([]);
  } finally {
    console.log = log;
  }
  expect(lines[0]).toEndWith(`(Go SDK ${SDK_VERSION}, tested against ${SDK_CHECKED_VERSION})`);
});

test("tinyhost version takes no arguments: anything else is a usage error, exit 2", async () => {
  const errors: string[] = [];
  const err = console.error;
  console.error = (s: string) => errors.push(s);
  try {
    expect(await commands.find((c) => c.name === "version")!.run(["--bogus"])).toBe(2);
  } finally {
    console.error = err;
  }
  expect(errors[0]).toBe('tinyhost version: unknown argument "--bogus" (it takes none)');
});
