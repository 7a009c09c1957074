/**
 * `tinyhost eval <flow dir> <evals file or dir>`: runs eval specs in the Go SDK's `pkg/evals`
 * format against the flow in local mode (src/local/evals) — the checks the platform's `tiny eval`
 * runs on a cluster, with the same verdicts — prints each verdict and exits 1 when one failed or
 * could not run, so a flow's evals are its tests in CI.
 */
import { resolve } from "node:path";
import type { CommandRunner } from "../command.ts";
import { FlagError, parseFlags } from "../flags.ts";
import { parseGoDuration } from "../../runtime/expression/time.ts";

/** Usage of `tinyhost eval`. */
export const EVAL_USAGE = `Usage: tinyhost eval [flags] <flow dir> <evals file or dir>

Runs the flow of <flow dir> in local mode (every module of it, bundled components and
--components), fires each eval's trigger as send_signal does, waits for the run to settle and
checks what arrived (the SDK's pkg/evals format: name, trigger {node, port, data}, timeout,
expect {errors, silent, arrives, usage}). A directory of evals is read in path order (*.yaml, *.yml).
Exits 0 when every eval passed, 1 when one failed or could not run, 2 on a usage error.

  --components <dir>   add the component files in <dir> to the bundled ones
  --name <module>      run only this module and the platform's (default: every module of the flow)
  --settle <d>         quiet time that ends a run: 200ms, 1s (default 500ms)
  --json               print the results as JSON (each with what the run produced)
  --verbose            also print local mode's lines (node status, hop errors)`;

/** Parsed arguments of `eval`. */
export interface EvalArgs {
  flowDir: string;
  evals: string;
  components?: string;
  name?: string;
  settleMs?: number;
  json: boolean;
  verbose: boolean;
}

/** Parses `eval`'s arguments; "help", or a usage error's text. */
export function parseEvalArgs(args: readonly string[]): EvalArgs | "help" | string {
  let parsed;
  try {
    parsed = parseFlags(
      args,
      {
        components: { type: "string", valueName: "a directory" },
        name: { type: "string" },
        settle: { type: "string", valueName: "a duration" },
        json: { type: "boolean" },
        verbose: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      { positionals: true },
    );
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    return err.message;
  }
  const { values: v, positionals: p } = parsed;
  if (v.help) return "help";
  if (p.length !== 2) return `needs <flow dir> and <evals file or dir>, got ${p.length} argument${p.length === 1 ? "" : "s"}`;
  const out: EvalArgs = { flowDir: p[0]!, evals: p[1]!, json: !!v.json, verbose: !!v.verbose };
  if (v.components !== undefined) out.components = v.components;
  if (v.name !== undefined) out.name = v.name;
  if (v.settle !== undefined) {
    const ns = parseGoDuration(v.settle);
    if (ns === undefined || ns < 0n) return `--settle must be a duration like 500ms or 2s, got ${JSON.stringify(v.settle)}`;
    out.settleMs = Number(ns / 1_000_000n);
  }
  return out;
}

/**
 * Runs the evals; lines go to `out` (verdicts) and `err` (problems).
 * @returns the exit code: 0 all passed, 1 a failure, an eval that could not run, or a flow that could not start.
 */
export async function runEvalCommand(a: EvalArgs, out: (l: string) => void, err: (l: string) => void): Promise<number> {
  const { loadEvals } = await import("../../local/evals/spec.ts");
  const { runEval, passed, formatMs } = await import("../../local/evals/run.ts");
  const { failureText } = await import("../../local/evals/check.ts");
  const { LocalHost } = await import("../../local/host.ts");
  const { bundledComponents, quietRuntimeLogs } = await import("./run-local.ts");
  let specs;
  try {
    specs = await loadEvals(resolve(a.evals), process.env, (w) => err(`tinyhost eval: warning: ${w}`));
  } catch (e) {
    err(`tinyhost eval: ${(e as Error).message}`);
    return 1;
  }
  quietRuntimeLogs();
  const hostLines: string[] = [];
  let host;
  try {
    host = await LocalHost.start({
      dir: resolve(a.flowDir),
      // The bundled set always (an eval runs wherever it is started), plus --components' files.
      components: (await bundledComponents(true)) ?? [],
      ...(a.components !== undefined ? { componentsDir: resolve(a.components) } : {}),
      ...(a.name !== undefined ? { moduleName: a.name } : {}),
      statePath: null, // an eval leaves the flow directory as it found it
      watch: false,
      report: (l) => (a.verbose ? err(l) : hostLines.push(l)),
    });
  } catch (e) {
    err(`tinyhost eval: ${(e as Error).message}`);
    return 1;
  }
  // Problems at load (a component that is missing, a broken edge) explain a failure: always shown.
  for (const l of hostLines) if (l.startsWith("error:")) err(l);
  const results = [];
  try {
    if (!a.json) out(`tinyhost eval: ${specs.length} eval${specs.length === 1 ? "" : "s"} from ${a.evals} on ${a.flowDir} (local mode)`);
    for (const spec of specs) {
      const r = await runEval(host, spec, a.settleMs !== undefined ? { settleMs: a.settleMs } : {});
      results.push(r);
      if (a.json) continue;
      const took = `(${formatMs(r.durationMs)})`;
      if (r.error !== undefined) out(`ERROR ${spec.name} ${took}: ${r.error}`);
      else if (r.failures.length === 0) out(`PASS  ${spec.name} ${took}`);
      else {
        out(`FAIL  ${spec.name} ${took}`);
        for (const f of r.failures) out(`      ${failureText(f)}`);
      }
    }
  } finally {
    await host.stop();
  }
  const ok = results.filter(passed).length;
  if (a.json) {
    out(
      JSON.stringify(
        {
          results: results.map((r) => ({
            name: r.spec.name,
            path: r.spec.path,
            node: r.node,
            passed: passed(r),
            failures: r.failures.map(failureText),
            ...(r.error !== undefined ? { error: r.error } : {}),
            durationMs: Math.round(r.durationMs),
            observed: r.observed,
          })),
        },
        null,
        2,
      ),
    );
  } else {
    out(`evals: ${ok} passed, ${results.length - ok} failed`);
  }
  return ok === results.length ? 0 : 1;
}

/** `tinyhost eval`. */
export const evalCommand: CommandRunner = {
  name: "eval",
  async run(args) {
    const parsed = parseEvalArgs(args);
    if (parsed === "help") {
      console.log(EVAL_USAGE);
      return 0;
    }
    if (typeof parsed === "string") {
      console.error(`tinyhost eval: ${parsed}\n\n${EVAL_USAGE}`);
      return 2;
    }
    return runEvalCommand(
      parsed,
      (l) => console.log(l),
      (l) => console.error(l),
    );
  },
};
