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
import { parseInstructions, parseStages } from "../../scripts/image/dockerfile.ts";

/** The repository's Dockerfile. */
export const DOCKERFILE = join(ROOT, "Dockerfile");

/** `"a b"` / `'a b'` / `a\ b` tokens of an ENV argument list. */
function tokens(args: string): string[] {
  const out: string[] = [];
  for (const m of args.matchAll(/(?:[^\s"'\\]|\\.|"(?:[^"\\]|\\.)*"|'[^']*')+/g)) {
    out.push(m[0].replace(/"((?:[^"\\]|\\.)*)"|'([^']*)'|\\(.)/g, (_, dq, sq, esc) => (dq !== undefined ? dq.replace(/\\(.)/g, "$1") : (sq ?? esc))));
  }
  return out;
}

/**
 * The final stage's `ENV`, later instructions overriding earlier ones.
 * @throws Error naming the line for a value with a `$` reference or an ENV without a value.
 */
export function imageEnv(text = readFileSync(DOCKERFILE, "utf8")): Record<string, string> {
  const env: Record<string, string> = {};
  for (const ins of parseStages(parseInstructions(text)).at(-1)?.instructions ?? []) {
    if (ins.keyword !== "ENV") continue;
    const where = `Dockerfile line ${ins.line}: ENV ${ins.args}`;
    if (ins.args.includes("$")) throw new Error(`${where}: variable references are not expanded here`);
    const t = tokens(ins.args);
    if (t.length && !t[0]!.includes("=")) {
      if (t.length < 2) throw new Error(`${where}: no value`);
      env[t[0]!] = t.slice(1).join(" ");
      continue;
    }
    for (const kv of t) {
      const eq = kv.indexOf("=");
      if (eq <= 0) throw new Error(`${where}: "${kv}" is not K=V`);
      env[kv.slice(0, eq)] = kv.slice(eq + 1);
    }
  }
  return env;
}
