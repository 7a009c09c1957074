import { describe, expect, test } from "bun:test";
import { DEFAULT_EXPOSE_LOCK_TTL_MS, decideLock, parseExposeLock } from "../../../src/k8s/resources/index.ts";

const lock = (holder: string, ttlSeconds = 30) => JSON.stringify({ holder, ttlSeconds, since: "2026-01-01T00:00:00Z" });

describe("decideLock", () => {
  test("a free lock (absent or empty) is taken", () => {
    expect(decideLock(undefined, "me", undefined, 0).take).toBe(true);
    expect(decideLock("", "me", undefined, 0).take).toBe(true);
  });

  test("my own lock counts as taken", () => {
    expect(decideLock(lock("me"), "me", undefined, 0).take).toBe(true);
  });

  test("another holder's lock is waited for until this waiter has seen it unchanged for its TTL", () => {
    const first = decideLock(lock("other", 2), "me", undefined, 1_000);
    expect(first).toEqual({ take: false, seen: { raw: lock("other", 2), sinceMs: 1_000 }, lock: { holder: "other", ttlMs: 2_000 } });
    expect(decideLock(lock("other", 2), "me", first.seen, 2_999).take).toBe(false);
    expect(decideLock(lock("other", 2), "me", first.seen, 3_000).take).toBe(true);
  });

  test("a changed lock value restarts the wait (the holder renewed or another took it)", () => {
    const first = decideLock(lock("a", 1), "me", undefined, 0);
    const second = decideLock(lock("b", 1), "me", first.seen, 5_000);
    expect(second.take).toBe(false);
    expect(second.seen).toEqual({ raw: lock("b", 1), sinceMs: 5_000 });
  });

  test("an unreadable lock expires after the default TTL", () => {
    expect(parseExposeLock("garbage")).toEqual({ holder: "<unreadable>", ttlMs: DEFAULT_EXPOSE_LOCK_TTL_MS });
    const seen = decideLock("garbage", "me", undefined, 0).seen;
    expect(decideLock("garbage", "me", seen, DEFAULT_EXPOSE_LOCK_TTL_MS).take).toBe(true);
  });
});
