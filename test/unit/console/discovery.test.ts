import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { consoleFile, findConsole, readConsoleRecord, removeConsoleRecord, writeConsoleRecord } from "../../../src/console/discovery.ts";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), "tinyhost-disc-"));
  dirs.push(d);
  return d;
};

describe("console discovery records", () => {
  test("written into <dir>/.tinyhost/console-<pid>.json, read back while its process runs", () => {
    const dir = temp();
    writeConsoleRecord(dir, { url: "http://127.0.0.1:7878", pid: process.pid });
    expect(consoleFile(dir, process.pid)).toBe(join(dir, ".tinyhost", `console-${process.pid}.json`));
    expect(existsSync(consoleFile(dir, process.pid))).toBe(true);
    expect(readConsoleRecord(dir)).toEqual({ url: "http://127.0.0.1:7878", pid: process.pid });
    expect(findConsole(dir).note).toBeUndefined();
  });

  test("missing, malformed or stale records are errors that say what to do", () => {
    const dir = temp();
    expect(() => readConsoleRecord(dir)).toThrow("is `tinyhost run --local");
    writeConsoleRecord(dir, { url: "http://127.0.0.1:1", pid: 999_999 });
    expect(() => readConsoleRecord(dir, () => false)).toThrow("(pid 999999) no longer runs");
    writeFileSync(consoleFile(dir, 999_999), "{");
    expect(() => readConsoleRecord(dir)).toThrow("is not JSON");
  });

  test("a legacy console.json is still read", () => {
    const dir = temp();
    mkdirSync(join(dir, ".tinyhost"));
    writeFileSync(consoleFile(dir), JSON.stringify({ url: "http://127.0.0.1:5", pid: 77 }));
    expect(readConsoleRecord(dir, () => true)).toEqual({ url: "http://127.0.0.1:5", pid: 77 });
  });

  test("removed only by the process that wrote it", () => {
    const dir = temp();
    writeConsoleRecord(dir, { url: "http://127.0.0.1:1", pid: 42 }, () => true);
    removeConsoleRecord(dir, 43);
    expect(existsSync(consoleFile(dir, 42))).toBe(true);
    removeConsoleRecord(dir, 42);
    expect(existsSync(consoleFile(dir, 42))).toBe(false);
  });

  test("a second host with its own --state keeps the first one's record; send picks the one on the directory's state and names the others", () => {
    const dir = temp();
    const alive = new Set([100, 200]);
    const isAlive = (pid: number) => alive.has(pid);
    writeConsoleRecord(dir, { url: "http://127.0.0.1:7878", pid: 200, state: join(dir, ".tinyhost/state.json") }, isAlive);
    writeConsoleRecord(dir, { url: "http://127.0.0.1:40001", pid: 100, state: "/tmp/other.json" }, isAlive);
    const both = findConsole(dir, isAlive);
    expect(both.record.pid).toBe(200); // on <dir>/.tinyhost/state.json, though started second here
    expect(both.others.map((r) => r.pid)).toEqual([100]);
    expect(both.note).toContain("2 tinyhost processes run on");
    expect(both.note).toContain("using pid 200 at http://127.0.0.1:7878");
    expect(both.note).toContain("pid 100 at http://127.0.0.1:40001, state /tmp/other.json");
    expect(both.note).toContain("--console <url>");
    // The second one stops: the first is still found.
    removeConsoleRecord(dir, 100);
    expect(readConsoleRecord(dir, isAlive).pid).toBe(200);
    // The first one is killed; a new host cleans its stale record when it writes its own.
    alive.delete(200);
    alive.add(300);
    writeConsoleRecord(dir, { url: "http://127.0.0.1:7879", pid: 300, state: null }, isAlive);
    expect(readdirSync(join(dir, ".tinyhost"))).toEqual(["console-300.json"]);
    expect(readConsoleRecord(dir, isAlive).url).toBe("http://127.0.0.1:7879");
  });
});
