/**
 * What a process's resident memory is made of, from `/proc/<pid>/smaps` (proc(5)): each mapping's
 * `Rss`, summed into the parts that matter for the compiled binary (docs/operations.md §8 has the
 * figures at 1,000 nodes). Why per mapping rather than `RssAnon`/`RssFile`: the two status lines
 * cannot tell the binary's code from its embedded bundle, nor the allocator's arena from JIT code.
 *
 * How the mappings are recognised (Bun 1.4.4 on Linux x64, checked with `readelf -S` against the
 * addresses and with `MIMALLOC_VERBOSE=1`):
 * - the executable's `r-xp` mapping is its `.text` (Bun, JavaScriptCore, the JIT compilers' own code);
 * - its `r--p` mappings are `.rodata` and the ELF headers;
 * - its `rw-p` mappings hold `.data`, `.bss` and the `.bun` section, the embedded bundle (the
 *   minified JavaScript, its JSC bytecode and the compressed source map), read like file pages
 *   until written;
 * - the largest anonymous `rw-p` mapping is mimalloc's arena (1 GiB reserved, `arena_reserve`),
 *   under JavaScriptCore's heap and Bun's native objects alike;
 * - anonymous `rwxp` is JavaScriptCore's executable memory (JIT code);
 * - every other anonymous mapping (thread stacks, small mmaps) and every other file (libc…) is
 *   summed apart.
 */
import { readFileSync, readlinkSync } from "node:fs";

/** Resident memory by part, bytes (see the file comment for what each part is). */
export interface RssParts {
  /** The executable's `r-xp` mapping: native code in use (`.text`). */
  binaryText: number;
  /** The executable's `r--p` mappings (`.rodata`). */
  binaryReadOnly: number;
  /** The executable's `rw-p` mappings: `.data`/`.bss` and the embedded bundle (`.bun`). */
  binaryDataAndBundle: number;
  /** Other mapped files (shared libraries). */
  otherFiles: number;
  /** The largest anonymous `rw-p` mapping: mimalloc's arena (JS heap, native objects). */
  allocatorArena: number;
  /** Anonymous `rwxp`: JIT code. */
  jitCode: number;
  /** Every other anonymous mapping (thread stacks, small mmaps, `[heap]`, `[stack]`). */
  otherAnon: number;
}

/**
 * Parses smaps text into {@link RssParts}.
 * @param smaps - the text of `/proc/<pid>/smaps`.
 * @param exe - the executable's path as smaps names it (`/proc/<pid>/exe`'s target).
 */
export function rssParts(smaps: string, exe: string): RssParts {
  const parts: RssParts = { binaryText: 0, binaryReadOnly: 0, binaryDataAndBundle: 0, otherFiles: 0, allocatorArena: 0, jitCode: 0, otherAnon: 0 };
  const anonRw: number[] = [];
  let perms = "";
  let name = "";
  for (const line of smaps.split("\n")) {
    const head = /^[0-9a-f]+-[0-9a-f]+ (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      perms = head[1]!;
      name = head[2]!.trim();
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (!rss) continue;
    const bytes = Number(rss[1]) * 1024;
    if (name === exe) {
      if (perms.includes("x")) parts.binaryText += bytes;
      else if (perms.includes("w")) parts.binaryDataAndBundle += bytes;
      else parts.binaryReadOnly += bytes;
    } else if (name.startsWith("/")) parts.otherFiles += bytes;
    else if (name === "" && perms.startsWith("rwx")) parts.jitCode += bytes;
    else if (name === "" && perms.startsWith("rw")) anonRw.push(bytes);
    else parts.otherAnon += bytes;
  }
  const largest = anonRw.length ? Math.max(...anonRw) : 0;
  parts.allocatorArena = largest;
  parts.otherAnon += anonRw.reduce((a, b) => a + b, 0) - largest;
  return parts;
}

/** {@link rssParts} of a live process, or undefined when its smaps cannot be read (gone, no /proc). */
export function processRssParts(pid: number): RssParts | undefined {
  try {
    return rssParts(readFileSync(`/proc/${pid}/smaps`, "utf8"), readlinkSync(`/proc/${pid}/exe`));
  } catch {
    return undefined;
  }
}

/** One line for a progress log: each part in MiB, file-backed parts first. */
export function rssPartsLine(p: RssParts): string {
  const m = (b: number) => (b / 1024 / 1024).toFixed(1);
  return `binary text ${m(p.binaryText)}, rodata ${m(p.binaryReadOnly)}, data+bundle ${m(p.binaryDataAndBundle)}, other files ${m(p.otherFiles)} | arena ${m(p.allocatorArena)}, JIT ${m(p.jitCode)}, other anon ${m(p.otherAnon)} MiB`;
}
