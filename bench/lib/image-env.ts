/**
 * The environment the image gives the module: the `ENV` instructions of the Dockerfile's last
 * stage (the one the image is), read from the file so a benchmark cannot drift from what ships.
 * Both forms of the Dockerfile reference are read: `ENV K=V [K2="V 2" …]` and the legacy
 * `ENV K V…`; line continuations are joined, comments dropped (also inside a continuation). Variable references (`$X`) are not expanded — the
 * Dockerfile has none; one would be refused rather than passed on as literal text.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./binary.ts";

/** The repository's Dockerfile. */
export const DOCKERFILE = join(ROOT, "Dockerfile");

/** `"a b"` / `'a b'` / `a\ b` tokens of an ENV argument list. */
function tokens(args: string): string[] {
  const out: string[] = [];
  for (const m of args.matchAll(/(?:[^\s"'\\]|\\.|"(?:[^"\\]|\\.)*"|'[^']*')+/g)) {
    out.push(m[0].replace(/"((?:[^"\\]|\\.)*)"|'([^']*)'|\\(.)/g, (_, dq, sq, esc) => (dq !== undefined ? dq.replace(/\\(.)/g, "$1") : sq ?? esc)));
  }
  return out;
}

/**
 * The final stage's `ENV`, later instructions overriding earlier ones.
 * @throws Error naming the line for a value with a `$` reference or an ENV without a value.
 */
export function imageEnv(text = readFileSync(DOCKERFILE, "utf8")): Record<string, string> {
  let env: Record<string, string> = {};
  let pending = "";
  let start = 0;
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trimEnd();
    // Comments and blank lines, also inside a continuation (the Dockerfile reference drops both).
    if (line.trim() === "" || line.trimStart().startsWith("#")) return;
    if (pending === "") start = i + 1;
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1)} `;
      return;
    }
    const full = (pending + line).trim();
    pending = "";
    const m = /^(\S+)\s*(.*)$/.exec(full)!;
    const keyword = m[1]!.toUpperCase();
    if (keyword === "FROM") env = {}; // a new stage: the image is the last one
    if (keyword !== "ENV") return;
    const args = m[2]!;
    const where = `Dockerfile line ${start}: ENV ${args}`;
    if (args.includes("$")) throw new Error(`${where}: variable references are not expanded here`);
    const t = tokens(args);
    if (t.length && !t[0]!.includes("=")) {
      if (t.length < 2) throw new Error(`${where}: no value`);
      env[t[0]!] = t.slice(1).join(" ");
      return;
    }
    for (const kv of t) {
      const eq = kv.indexOf("=");
      if (eq <= 0) throw new Error(`${where}: "${kv}" is not K=V`);
      env[kv.slice(0, eq)] = kv.slice(eq + 1);
    }
  });
  return env;
}
