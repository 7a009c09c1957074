import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { acquireStateLock, processIsAlive, STATE_LOCK_SUFFIX } from "../../../src/local/state-lock.ts";
import { StateLockedError } from "../../../src/local/errors.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function stateFile(): string {
  const d = mkdtempSync(join(tmpdir(), "tinyhost-lock-"));
  dirs.push(d);
  return join(d, ".tinyhost", "state.json");
}

describe("state file lock", () => {
  test("the first process takes <state>.lock holding its pid (creating the directory); release deletes it", () => {
    const file = stateFile();
    const lock = acquireStateLock(file, { pid: 4242, releaseOnExit: false });
    expect(lock.file).toBe(`${file}${STATE_LOCK_SUFFIX}`);
    expect(readFileSync(lock.file, "utf8")).toBe("4242\n");
    expect(lock.tookOverFrom).toBeUndefined();
    lock.release();
    expect(existsSync(lock.file)).toBe(false);
    lock.release(); // twice is fine
  });

  test("a second process is refused naming the state file, the other pid and --state", () => {
    const file = stateFile();
    const first = acquireStateLock(file, { pid: 4242, releaseOnExit: false });
    let err: unknown;
    try {
      acquireStateLock(file, { pid: 5353, isAlive: (pid) => pid === 4242, releaseOnExit: false });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StateLockedError);
    expect((err as StateLockedError).code).toBe("STATE_LOCKED");
    expect((err as StateLockedError).pid).toBe(4242);
    expect((err as Error).message).toContain(`state file ${file} is in use by another tinyhost (pid 4242)`);
    expect((err as Error).message).toContain("--state <file>");
    expect(readFileSync(first.file, "utf8")).toBe("4242\n"); // untouched
    first.release();
  });

  test("a lock left by a dead process is taken over and says from which pid", () => {
    const file = stateFile();
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(`${file}.lock`, "999999\n");
    const lock = acquireStateLock(file, { pid: 5353, isAlive: () => false, releaseOnExit: false });
    expect(lock.tookOverFrom).toBe(999999);
    expect(readFileSync(lock.file, "utf8")).toBe("5353\n");
    expect(readdirSync(join(file, "..")).sort()).toEqual(["state.json.lock"]); // no temp or stale files left
    lock.release();
  });

  test("an unreadable lock (not a pid) is stale too", () => {
    const file = stateFile();
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(`${file}.lock`, "garbage");
    const lock = acquireStateLock(file, { pid: 5353, isAlive: () => true, releaseOnExit: false });
    expect(lock.tookOverFrom).toBeUndefined();
    expect(readFileSync(lock.file, "utf8")).toBe("5353\n");
    lock.release();
  });

  test("release leaves a lock that is no longer ours alone", () => {
    const file = stateFile();
    const lock = acquireStateLock(file, { pid: 4242, releaseOnExit: false });
    writeFileSync(lock.file, "7777\n"); // taken over by someone else meanwhile
    lock.release();
    expect(readFileSync(lock.file, "utf8")).toBe("7777\n");
  });

  test("processIsAlive: this process runs; a pid far above the limit does not", () => {
    expect(processIsAlive(process.pid)).toBe(true);
    expect(processIsAlive(2 ** 22 + 12345)).toBe(false);
  });
});

describe("StateLock.ensure", () => {
  test("held while ours; re-created when deleted; names a live process that took it; takes back a dead one's", () => {
    const file = stateFile();
    const alive = new Set([4242]);
    const lock = acquireStateLock(file, { pid: 4242, isAlive: (p) => alive.has(p), releaseOnExit: false });
    expect(lock.ensure()).toBe("held");
    rmSync(join(file, ".."), { recursive: true, force: true });
    expect(lock.ensure()).toBe("recreated");
    expect(readFileSync(lock.file, "utf8")).toBe("4242\n");
    alive.add(5353);
    writeFileSync(lock.file, "5353\n");
    expect(lock.ensure()).toBe(5353);
    alive.delete(5353);
    expect(lock.ensure()).toBe("recreated");
    lock.release();
    expect(lock.ensure()).toBe("released");
    expect(existsSync(lock.file)).toBe(false);
  });
});

describe("processIsAlive", () => {
  test("a zombie (killed, never reaped by its parent) is not alive, so its lock can be taken over", async () => {
    if (process.platform !== "linux") return;
    // sh starts `sleep 0.05` in the background, prints its pid and becomes `sleep 5`, which never
    // reaps it: the child stays a zombie, as a `kill -9`ed host orphaned under a non-reaping init.
    const parent = Bun.spawn(["sh", "-c", "sleep 0.05 & echo $!; exec sleep 5"], { stdout: "pipe" });
    try {
      const reader = parent.stdout.getReader();
      const { value } = await reader.read();
      const child = Number(new TextDecoder().decode(value).trim());
      expect(Number.isInteger(child)).toBe(true);
      for (let i = 0; i < 100 && !readFileSync(`/proc/${child}/stat`, "utf8").includes(") Z"); i++) await Bun.sleep(20);
      expect(readFileSync(`/proc/${child}/stat`, "utf8")).toContain(") Z"); // still there, as a zombie
      expect(processIsAlive(child)).toBe(false);
      expect(processIsAlive(parent.pid)).toBe(true);
      const file = stateFile();
      mkdirSync(join(file, ".."), { recursive: true });
      writeFileSync(`${file}${STATE_LOCK_SUFFIX}`, `${child}\n`);
      const lock = acquireStateLock(file, { releaseOnExit: false });
      expect(lock.tookOverFrom).toBe(child);
      lock.release();
    } finally {
      parent.kill(9);
    }
  });
});
