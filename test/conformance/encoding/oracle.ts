/** Runs encoding cases through the live Go codecs oracle (test/go/codecs). */
import { goTool } from "../../support/go-tools.ts";
import { compact, oracleLine } from "./harness.ts";
import type { EncodingCase, GoOutcome } from "./types.ts";

/**
 * Go's outcome of every case, by id (compacted: long outputs as digests).
 * @throws Error when the tool cannot be built, exits non-zero or misses a case
 */
export async function runCodecsOracle(cases: readonly EncodingCase[]): Promise<Map<string, GoOutcome>> {
  const bin = await goTool("codecs");
  const input = cases.map(oracleLine).join("\n") + "\n";
  const proc = Bun.spawn([bin], { stdin: new TextEncoder().encode(input), stdout: "pipe", stderr: "pipe", env: { ...process.env, TZ: "UTC" } });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`the codecs oracle exited ${code}: ${err.trim()}`);
  const outcomes = new Map<string, GoOutcome>();
  for (const line of out.split("\n")) {
    if (line.trim() === "") continue;
    const { id, ...outcome } = JSON.parse(line) as GoOutcome & { id: string };
    outcomes.set(id, compact(outcome));
  }
  for (const c of cases) if (!outcomes.has(c.id)) throw new Error(`the codecs oracle gave no outcome for ${c.id}`);
  return outcomes;
}
