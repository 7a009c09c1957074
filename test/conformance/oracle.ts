/**
 * Runs cases through the Go oracle (test/go/oracle: the SDK's own evaluator behind the runner's
 * callback), built by scripts/build-go-tools.sh. TZ is UTC, as in the module containers.
 */
import { goTool } from "../support/go-tools.ts";
import type { Case, Outcome } from "./harness.ts";

/**
 * Go's outcome of every case, by id.
 * @throws Error when the oracle cannot be built or exits non-zero, or misses a case
 */
export async function runOracle(cases: readonly Case[]): Promise<Map<string, Outcome>> {
  const bin = await goTool("oracle");
  const input = cases.map((c) => JSON.stringify({ id: c.id, config: c.config, payload: c.payload })).join("\n") + "\n";
  const proc = Bun.spawn([bin], { stdin: new TextEncoder().encode(input), stdout: "pipe", stderr: "pipe", env: { ...process.env, TZ: "UTC" } });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`the oracle exited ${code}: ${err.trim()}`);
  const outcomes = new Map<string, Outcome>();
  for (const line of out.split("\n")) {
    if (line.trim() === "") continue;
    const { id, ...outcome } = JSON.parse(line) as Outcome & { id: string };
    outcomes.set(id, { ...outcome, fieldErrors: outcome.fieldErrors ?? (outcome.result !== undefined ? [] : undefined) });
  }
  for (const c of cases) if (!outcomes.has(c.id)) throw new Error(`the oracle gave no outcome for ${c.id}`);
  return outcomes;
}
