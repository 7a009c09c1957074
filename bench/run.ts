/**
 * `npm run bench`: runs every benchmark in bench/ (each prints a JSON array of rows on its last
 * stdout line: `{name, value, unit, baseline?, ratio?, target?, met?}`), then writes
 * - bench/results.json: every row as `{name, value, unit, baseline, ratio, target, met}` (null where
 *   a field does not apply) plus `bench` (the file) and `note` when the benchmark gave one;
 * - bench/RESULTS.md: the machine (cores, memory, OS, Bun/Node versions, date), the same table, and
 *   the Go comparison rows of bench/vs-go.ts (processes) and bench/pods.ts (pods with CPU limits,
 *   on the real node; root only, else one `pods_skipped` row) again as tinyhost | Go | ratio.
 * `--quick` is passed on to each benchmark (short runs; scale does 1,000 nodes only). `--only a,b`
 * runs the named files only (e.g. `--only scale,cold-start`); with `--merge`, the rows of the other
 * benchmarks are kept from the existing results.json (a re-run of a few on a quieter machine), and
 * RESULTS.md says which were re-run. Exit code 1 when a benchmark failed.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { machineInfo } from "./lib/machine.ts";

const dir = import.meta.dir;
/** Heading of RESULTS.md's hand-written last section: `npm run bench` regenerates everything above it. */
const HAND_WRITTEN = "## Measurements behind code choices";
const quick = process.argv.includes("--quick");
const onlyArg = process.argv.find((a, i) => process.argv[i - 1] === "--only" || a.startsWith("--only="));
const only = onlyArg
  ? new Set(
      onlyArg
        .replace(/^--only=/, "")
        .split(",")
        .map((s) => s.replace(/\.ts$/, "")),
    )
  : undefined;
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".ts") && f !== "run.ts" && !f.startsWith("_"))
  .filter((f) => !only || only.has(f.replace(/\.ts$/, "")))
  .sort();

/** One row of results.json. */
interface ResultRow {
  bench: string;
  name: string;
  value: number;
  unit: string;
  baseline: number | null;
  ratio: number | null;
  target: number | null;
  met: boolean | null;
  note?: string;
}

const machine = machineInfo();
const results: ResultRow[] = [];
const failed: string[] = [];
const durations: Record<string, number> = {};
const started = performance.now();
for (const file of files) {
  console.error(`bench: ${file}${quick ? " --quick" : ""}`);
  const t0 = performance.now();
  const r = Bun.spawnSync([process.execPath, resolve(dir, file), ...(quick ? ["--quick"] : [])], {
    stdout: "pipe",
    stderr: "inherit",
    env: { ...process.env, TINYHOST_LOG_LEVEL: "silent" },
  });
  durations[file] = Math.round((performance.now() - t0) / 1000);
  const out = r.stdout.toString().trim();
  if (r.exitCode !== 0) {
    console.error(`bench: ${file} failed (exit ${r.exitCode})`);
    failed.push(file);
    continue;
  }
  // A benchmark prints its JSON array last: one line, or pretty-printed from a line starting with "[".
  const start = out.lastIndexOf("\n[");
  const candidates = [out.split("\n").pop() ?? "", start >= 0 ? out.slice(start + 1) : out];
  const parsed = candidates.map(tryParse).find((v) => v !== undefined);
  if (parsed === undefined) {
    console.error(`bench: ${file} did not end its output with a JSON array`);
    failed.push(file);
    continue;
  }
  const rows = (Array.isArray(parsed) ? parsed : [parsed]) as Array<Record<string, unknown>>;
  const bad = rows.find((r) => typeof r?.name !== "string" || typeof r.value !== "number" || !Number.isFinite(r.value));
  if (bad) {
    // A row without a name or a finite value would land in results.json as "undefined | NaN".
    console.error(`bench: ${file} printed a row without a name or a finite value: ${JSON.stringify(bad)}`);
    failed.push(file);
    continue;
  }
  for (const raw of rows) results.push(normalize(file, raw));
}
const totalS = Math.round((performance.now() - started) / 1000);
const merge = process.argv.includes("--merge") && only !== undefined;
if (merge && existsSync(resolve(dir, "results.json"))) {
  // Rows name their bench without the ".ts" (normalize); compare on that, or every re-run row doubles.
  const ran = new Set(files.map((f) => f.replace(/\.ts$/, "")));
  const kept = (JSON.parse(readFileSync(resolve(dir, "results.json"), "utf8")) as ResultRow[]).filter((r) => !ran.has(r.bench));
  results.unshift(...kept);
}
writeFileSync(
  resolve(dir, "results.json"),
  JSON.stringify(
    results.map(({ bench: _b, note: _n, ...r }) => ({ ...r, bench: _b, ...(_n ? { note: _n } : {}) })),
    null,
    2,
  ) + "\n",
);
writeFileSync(resolve(dir, "RESULTS.md"), markdown());
console.table(results.map(({ note: _n, ...r }) => r));
console.error(
  `bench: ${results.length} figures in ${totalS} s; ${results.filter((r) => r.met === false).length} targets missed; failed: ${failed.join(", ") || "none"}`,
);
process.exit(failed.length ? 1 : 0);

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function num(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

/** A row with every field present (null where not applicable); `met` null without a target. */
function normalize(file: string, r: Record<string, unknown>): ResultRow {
  const target = num(r.target);
  return {
    bench: file.replace(/\.ts$/, ""),
    name: String(r.name),
    value: num(r.value) ?? Number.NaN,
    unit: String(r.unit ?? ""),
    baseline: num(r.baseline),
    ratio: num(r.ratio),
    target,
    met: target === null ? null : typeof r.met === "boolean" ? r.met : null,
    ...(typeof r.note === "string" ? { note: r.note } : {}),
  };
}

function cell(v: number | boolean | null | undefined): string {
  if (v === null || v === undefined) return "—";
  if (typeof v === "boolean") return v ? "yes" : "**no**";
  return Number.isInteger(v) ? v.toLocaleString("en-US") : String(v);
}

function markdown(): string {
  const lines = [
    "# Benchmark results",
    "",
    `Generated by \`npm run bench${quick ? " -- --quick" : ""}\` (bench/run.ts) on ${machine.date}; raw figures in \`bench/results.json\`.`,
    "Targets apply to `value`, or to `ratio` (value ÷ same-run baseline) where the target is below 1.",
    "",
    "## Machine",
    "",
    "| | |",
    "|---|---|",
    `| CPU | ${machine.cpuModel}, ${machine.cores} cores |`,
    `| memory | ${machine.memoryGiB} GiB |`,
    `| OS | ${machine.os} |`,
    `| Bun | ${machine.bun} |`,
    `| Node | ${machine.node} |`,
    `| nats-server | ${machine.nats} |`,
    `| load average at start (1/5/15 min) | ${machine.loadAverage.join(" / ")} |`,
    `| mode | ${quick ? "--quick" : "full"}${merge ? `; re-run of ${files.join(", ")} merged into the previous full run's other rows` : ""}; ${totalS} s in all (${Object.entries(
      durations,
    )
      .map(([f, s]) => `${f} ${s} s`)
      .join(", ")}) |`,
    "",
    "## Figures",
    "",
    "| bench | name | value | unit | baseline | ratio | target | met |",
    "|---|---|---:|---|---:|---:|---:|---|",
    ...results.map(
      (r) => `| ${r.bench} | ${r.name} | ${cell(r.value)} | ${r.unit} | ${cell(r.baseline)} | ${cell(r.ratio)} | ${cell(r.target)} | ${cell(r.met)} |`,
    ),
    "",
  ];
  // The Go comparisons once more on their own: tinyhost beside the Go SDK's peer module, as
  // processes (bench/vs-go.ts) and as pods with CPU limits (bench/pods.ts).
  const comparisons = [
    {
      bench: "vs-go",
      prefix: /^vs_go_/,
      title: "Against the Go SDK",
      text: "bench/vs-go.ts: the Go peer module (test/go/peer, the real Go SDK) and dist/tinyhost on the same apiserver and NATS, runs interleaved; the baseline of each row is the Go figure of the same run.",
    },
    {
      bench: "pods",
      prefix: /^pods_/,
      title: "Against the Go SDK, in pods",
      text: "bench/pods.ts: the Go peer module's image and tinyhost's image as pods on the real node, each with the chart's 128Mi memory limit and the same CPU limit (500m, then 1 CPU), runs interleaved; the baseline of each row is the Go pod's figure of the same run.",
    },
  ];
  for (const c of comparisons) {
    const rows = results.filter((r) => r.bench === c.bench && r.baseline !== null);
    if (!rows.length) continue;
    lines.push(
      `## ${c.title}`,
      "",
      c.text,
      "",
      "| figure | unit | tinyhost | Go | tinyhost ÷ Go | target | met |",
      "|---|---|---:|---:|---:|---:|---|",
      ...rows.map(
        (r) =>
          `| ${r.name.replace(c.prefix, "")} | ${r.unit} | ${cell(r.value)} | ${cell(r.baseline)} | ${cell(r.ratio)} | ${cell(r.target)} | ${cell(r.met)} |`,
      ),
      "",
    );
  }
  const notes = results.filter((r) => r.note);
  if (notes.length) lines.push("## Notes", "", ...notes.map((r) => `- **${r.name}**: ${r.note}`), "");
  if (failed.length) lines.push("## Failed", "", ...failed.map((f) => `- ${f} exited non-zero or printed no JSON (see the run's stderr)`), "");
  return lines.join("\n") + handWritten();
}

/** The hand-written section at the end of the existing RESULTS.md (figures code comments point to), kept as it is. */
function handWritten(): string {
  const path = resolve(dir, "RESULTS.md");
  const text = existsSync(path) ? readFileSync(path, "utf8") : "";
  const at = text.indexOf(`\n${HAND_WRITTEN}\n`);
  return at < 0 ? "" : text.slice(at);
}
