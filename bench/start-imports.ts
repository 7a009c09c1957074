/**
 * What loading the cluster start's code costs in the compiled binary (issue 19): an entry compiled
 * like dist/tinyhost (bytecode, minified; scripts/build.ts) imports, in the order `tinyhost run`
 * does, the first start-up stage (src/operator/early.ts: the API client, the Lease elector, the
 * registration) and then the rest (src/cli/commands/run-module.ts: pino, the runtime, the NATS
 * client via the transport), each timed with `performance.now()` around its `import()`. The first
 * figure is what runs before the three requests /readyz waits on leave; the second runs while
 * they are answered (src/operator/early.ts). Median of 15 fresh processes.
 *
 * Prints JSON rows on its last stdout line (bench/run.ts contract).
 *   ./node_modules/.bin/bun bench/start-imports.ts [--quick]
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { staticRequirePlugin } from "../scripts/build.ts";
import { ROOT } from "./lib/binary.ts";
import { emit, median, progress, quick, row } from "./lib/result.ts";

const RUNS = quick ? 7 : 15;
const dir = mkdtempSync(join(tmpdir(), "tinyhost-start-imports-"));
try {
  const entry = join(dir, "entry.ts");
  // The NATS client is imported explicitly: the transport loads it when the wire opens, right after.
  writeFileSync(
    entry,
    [
      "const t0 = performance.now();",
      `await import(${JSON.stringify(resolve(ROOT, "src/operator/early.ts"))});`,
      "const t1 = performance.now();",
      `await import(${JSON.stringify(resolve(ROOT, "src/cli/commands/run-module.ts"))});`,
      `await import(${JSON.stringify(resolve(ROOT, "src/transport/nats/index.ts"))});`,
      "const t2 = performance.now();",
      "console.log(JSON.stringify([t1 - t0, t2 - t1]));",
    ].join("\n"),
  );
  const outfile = join(dir, "entry");
  const built = await Bun.build({
    entrypoints: [entry],
    compile: { outfile },
    minify: true,
    bytecode: true,
    format: "esm",
    target: "bun",
    allowUnresolved: ["file://*"],
    plugins: [staticRequirePlugin],
  });
  if (!built.success) throw new Error(`compiling the import probe failed: ${built.logs.join("\n")}`);
  const first: number[] = [];
  const rest: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const r = Bun.spawnSync([outfile], { stdout: "pipe", stderr: "pipe", env: { ...process.env, TINYHOST_LOG_LEVEL: "silent" } });
    if (r.exitCode !== 0) throw new Error(`import probe exited ${r.exitCode}: ${r.stderr.toString()}`);
    const [a, b] = JSON.parse(r.stdout.toString().trim()) as [number, number];
    first.push(a);
    rest.push(b);
  }
  progress("start-imports", `first stage ${first.map((x) => x.toFixed(1)).join(" ")} ms; the rest ${rest.map((x) => x.toFixed(1)).join(" ")} ms`);
  emit([
    row({
      name: "start_import_first_stage",
      value: median(first),
      unit: "ms",
      digits: 2,
      note: `compiled binary: import of src/operator/early.ts (before the first requests leave), median of ${RUNS}`,
    }),
    row({
      name: "start_import_runtime",
      value: median(rest),
      unit: "ms",
      digits: 2,
      note: `then src/cli/commands/run-module.ts and the NATS client (while the first requests are answered), median of ${RUNS}`,
    }),
  ]);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
