import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { consoleFile, readConsoleRecord, removeConsoleRecord, writeConsoleRecord } from "../../../src/console/discovery.ts";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), "tinyhost-disc-"));
  dirs.push(d);
  return d;
};

describe("console discovery file", () => {
  test("written into <dir>/.tinyhost/console.json, read back while its process runs", () => {
    const dir = temp();
    writeConsoleRecord(dir, { url: "http://127.0.0.1:7878", pid: process.pid });
    expect(consoleFile(dir)).toBe(join(dir, ".tinyhost", "console.json"));
    expect(readConsoleRecord(dir)).toEqual({ url: "http://127.0.0.1:7878", pid: process.pid });
  });

  test("missing, malformed or stale files are errors that say what to do", () => {
    const dir = temp();
    expect(() => readConsoleRecord(dir)).toThrow("is `tinyhost run --local");
    writeConsoleRecord(dir, { url: "http://127.0.0.1:1", pid: 999_999 });
    expect(() => readConsoleRecord(dir, () => false)).toThrow("(pid 999999) no longer runs");
    writeFileSync(consoleFile(dir), "{");
    expect(() => readConsoleRecord(dir)).toThrow("is not JSON");
  });

  test("removed only by the process that wrote it", () => {
    const dir = temp();
    writeConsoleRecord(dir, { url: "http://127.0.0.1:1", pid: 42 });
    removeConsoleRecord(dir, 43);
    expect(existsSync(consoleFile(dir))).toBe(true);
    removeConsoleRecord(dir, 42);
    expect(existsSync(consoleFile(dir))).toBe(false);
  });
});
