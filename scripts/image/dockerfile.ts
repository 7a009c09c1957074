/**
 * A Dockerfile read as instructions, global build arguments and build stages — the one parser
 * behind the static Dockerfile checks (test/unit/dockerfile.test.ts), the image's ENV as
 * bench/memory.ts applies it (bench/lib/image-env.ts), and the base images `npm run image` must
 * stand in for (./module-image.ts reads the `ARG` defaults).
 */

/** One instruction: keyword (upper case), raw arguments (continuations joined), 1-based line. */
export interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

/** A build stage: its FROM image, optional name, and instructions after the FROM. */
export interface Stage {
  /** The FROM image with build arguments substituted (defaults, or the values given). */
  image: string;
  /** The FROM image as written, e.g. `${BUN_IMAGE}`. */
  from: string;
  name?: string;
  instructions: Instruction[];
}

/**
 * Splits a Dockerfile into instructions: drops comments and blank lines (also inside a
 * continuation, as the Dockerfile reference does), joins `\` continuations.
 * @throws Error when the text ends inside a continuation.
 */
export function parseInstructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  let pending = "";
  let start = 0;
  text.split("\n").forEach((raw, i) => {
    const line = raw.trimEnd();
    if (pending === "" && (line.trim() === "" || line.trimStart().startsWith("#"))) return;
    if (pending !== "" && line.trimStart().startsWith("#")) return; // comment inside a continuation
    if (pending === "") start = i + 1;
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1)} `;
      return;
    }
    const full = (pending + line).trim();
    pending = "";
    const match = /^(\S+)\s*(.*)$/.exec(full)!;
    out.push({ keyword: match[1]!.toUpperCase(), args: match[2]!, line: start });
  });
  if (pending !== "") throw new Error("Dockerfile ends inside a line continuation");
  return out;
}

/**
 * The global build arguments: `ARG NAME[=default]` before the first FROM (the only ones a FROM
 * line can use, Dockerfile reference "Understand how ARG and FROM interact"), in order; a
 * missing default is undefined. Quotes around a default are removed.
 * @throws Error naming the line for an ARG that is not `NAME` or `NAME=value`.
 */
export function globalArgs(instructions: Instruction[]): Map<string, string | undefined> {
  const args = new Map<string, string | undefined>();
  for (const ins of instructions) {
    if (ins.keyword === "FROM") break;
    if (ins.keyword !== "ARG") continue;
    const m = /^([A-Za-z_][A-Za-z0-9_]*)(?:=(.*))?$/.exec(ins.args.trim());
    if (!m) throw new Error(`line ${ins.line}: ARG ${ins.args}: expected NAME or NAME=value`);
    args.set(m[1]!, m[2] === undefined ? undefined : m[2].replace(/^"(.*)"$|^'(.*)'$/, (_, d, q) => d ?? q));
  }
  return args;
}

/**
 * `$NAME` and `${NAME}` in `text` replaced from `values`.
 * @throws Error naming the variable when it has no value (an empty FROM would follow).
 */
export function substituteArgs(text: string, values: ReadonlyMap<string, string | undefined>): string {
  return text.replace(/\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g, (_, braced, bare) => {
    const name = (braced ?? bare) as string;
    const value = values.get(name);
    if (value === undefined) throw new Error(`build argument ${name} has no value (no default and none given)`);
    return value;
  });
}

/**
 * Groups instructions by FROM, the FROM image resolved from the global ARGs' defaults
 * overridden by `buildArgs` (as `--build-arg` does; a name not declared before the first FROM is
 * not in scope there and stays unused).
 * @throws Error from {@link globalArgs} or {@link substituteArgs}.
 */
export function parseStages(instructions: Instruction[], buildArgs: Readonly<Record<string, string>> = {}): Stage[] {
  const values = globalArgs(instructions);
  for (const [name, value] of Object.entries(buildArgs)) if (values.has(name)) values.set(name, value);
  const stages: Stage[] = [];
  for (const ins of instructions) {
    if (ins.keyword === "FROM") {
      const parts = ins.args.split(/\s+/).filter((p) => !p.startsWith("--platform"));
      const as = parts.findIndex((p) => p.toUpperCase() === "AS");
      stages.push({ image: substituteArgs(parts[0]!, values), from: parts[0]!, ...(as > 0 ? { name: parts[as + 1]! } : {}), instructions: [] });
    } else if (stages.length > 0) {
      stages.at(-1)!.instructions.push(ins);
    }
  }
  return stages;
}
