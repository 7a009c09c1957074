/**
 * A Dockerfile read as instructions and build stages — the one parser behind the static Dockerfile
 * checks (test/unit/dockerfile.test.ts) and the image's ENV as bench/memory.ts applies it
 * (./image-env.ts). No Docker engine runs on the test machines, so the file is read, not built.
 */

/** One instruction: keyword (upper case), raw arguments (continuations joined), 1-based line. */
export interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

/** A build stage: its FROM image, optional name, and instructions after the FROM. */
export interface Stage {
  image: string;
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

/** Groups instructions by FROM. Instructions before the first FROM (ARG) are ignored. */
export function parseStages(instructions: Instruction[]): Stage[] {
  const stages: Stage[] = [];
  for (const ins of instructions) {
    if (ins.keyword === "FROM") {
      const parts = ins.args.split(/\s+/).filter((p) => !p.startsWith("--platform"));
      const as = parts.findIndex((p) => p.toUpperCase() === "AS");
      stages.push({ image: parts[0]!, ...(as > 0 ? { name: parts[as + 1]! } : {}), instructions: [] });
    } else if (stages.length > 0) {
      stages.at(-1)!.instructions.push(ins);
    }
  }
  return stages;
}
