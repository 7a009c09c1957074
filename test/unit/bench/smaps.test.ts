import { describe, expect, test } from "bun:test";
import { rssParts, rssPartsLine } from "../../../bench/lib/smaps.ts";

const KiB = 1024;
/** One smaps entry with only the lines rssParts reads. */
const entry = (range: string, perms: string, name: string, rssKb: number) =>
  `${range} ${perms} 00000000 fe:00 1 ${name}\nSize: 4 kB\nRss: ${rssKb} kB\nAnonymous: 0 kB\n`;

describe("rssParts (bench/lib/smaps.ts)", () => {
  test("sums each mapping's Rss into the binary's parts, the arena, JIT code and the rest", () => {
    const exe = "/manager";
    const text = [
      entry("00200000-01a38000", "r--p", exe, 6000),
      entry("01a40000-06836000", "r-xp", exe, 24000),
      entry("06852000-076e1000", "rw-p", exe, 8000),
      entry("7f00-7f10", "r-xp", "/usr/lib/x86_64-linux-gnu/libc.so.6", 1100),
      entry("4d54-4d58", "rw-p", "", 62000),
      entry("7f20-7f30", "rw-p", "", 900),
      entry("7f30-7f40", "rwxp", "", 3000),
      entry("7ffc-7ffd", "rw-p", "[stack]", 100),
    ].join("");
    const p = rssParts(text, exe);
    expect(p).toEqual({
      binaryText: 24000 * KiB,
      binaryReadOnly: 6000 * KiB,
      binaryDataAndBundle: 8000 * KiB,
      otherFiles: 1100 * KiB,
      allocatorArena: 62000 * KiB,
      jitCode: 3000 * KiB,
      otherAnon: 1000 * KiB,
    });
    expect(rssPartsLine(p)).toContain("binary text 23.4");
  });

  test("no mappings: all zero", () => {
    expect(Object.values(rssParts("", "/manager")).every((v) => v === 0)).toBe(true);
  });
});
