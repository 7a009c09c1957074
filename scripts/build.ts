/**
 * `npm run build`: validates every component file with dev discovery and, only if all are valid,
 * generates the static component registry (no dynamic import is left for the compiled binary to
 * resolve; scripts/gen-registry.ts), then compiles `dist/tinyhost` with `Bun.build({ compile })`.
 * Fails, naming the component file and the reason, before writing anything when a component throws
 * on import, has no valid default export, duplicates a name or has a syntax error; fails when the
 * compiler fails.
 *
 * Two things the compiled binary needs beyond `bun build --compile`:
 * - {@link staticRequirePlugin}: packages built by rolldown load some dependencies lazily with
 *   `__require("<pkg>")` (a `createRequire(import.meta.url)`), which the bundler cannot see and a
 *   compiled binary cannot resolve at run time ("Cannot find module '@grpc/grpc-js' from
 *   '/$bunfs/root/tinyhost'": the OTLP/gRPC trace exporter failed every export and crashed the
 *   process at shutdown whenever OTLP_DSN was set, as the chart sets it). The plugin turns those
 *   calls into static imports.
 * - {@link EXEC_ARGV}: the runtime options baked into the binary (none; memory: docs/operations.md
 *   "Memory"; measured by bench/memory.ts).
 */
import { existsSync, mkdirSync } from "node:fs";
import { resolve } from "node:path";
import type { BunPlugin } from "bun";

const root = resolve(import.meta.dir, "..");
const bun = process.execPath;

/**
 * Options every run of the compiled binary starts with (`compile.execArgv`, the CLI's
 * `--compile-exec-argv`). Empty on purpose: `--smol` (JavaScriptCore's smaller heap, more frequent
 * collection) was measured with 1,000 TinyNodes (bench/memory.ts, docs/operations.md "Memory"):
 * no gain idle (101 vs 98 MiB RSS), 7 % less RSS under traffic for 29 % less throughput, and it does not keep the
 * traffic case under the chart's 128Mi — what grows there is not fixed by GC pressure.
 */
export const EXEC_ARGV: readonly string[] = [];

/**
 * The compiled binary's entry points: the CLI, and the script sandbox's worker
 * (src/runtime/script/sandbox-worker.ts), a second entrypoint Bun embeds so
 * `new Worker(new URL("./sandbox-worker.ts", import.meta.url))` finds it in the binary. Paths
 * relative to the repository root (the Dockerfile's build stage copies what they import).
 */
export const ENTRYPOINTS: readonly string[] = ["src/cli/main.ts", "src/runtime/script/sandbox-worker.ts"];

/** Rewrites rolldown's `__require("<pkg>")` in node_modules `.mjs` files into static imports. */
export const staticRequirePlugin: BunPlugin = {
  name: "static-require",
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]@opentelemetry[\\/].*\.mjs$/ }, async (args) => {
      const text = await Bun.file(args.path).text();
      const ids = [...new Set([...text.matchAll(/__require\("([^"]+)"\)/g)].map((m) => m[1]!))];
      if (ids.length === 0) return { contents: text, loader: "js" };
      const imports = ids.map((id, i) => `import * as __static_require_${i} from ${JSON.stringify(id)};`).join("\n");
      const body = ids.reduce((t, id, i) => t.replaceAll(`__require(${JSON.stringify(id)})`, `__static_require_${i}`), text);
      return { contents: `${imports}\n${body}`, loader: "js" };
    });
  },
};

function step(name: string, cmd: string[]): void {
  const t0 = performance.now();
  const r = Bun.spawnSync(cmd, { cwd: root, stdout: "inherit", stderr: "inherit" });
  if (r.exitCode !== 0) {
    console.error(`build: ${name} failed (exit ${r.exitCode})`);
    process.exit(1);
  }
  console.error(`build: ${name} done in ${Math.round(performance.now() - t0)} ms`);
}

if (import.meta.main) {
  if (existsSync(resolve(root, "scripts/gen-registry.ts"))) step("validate components + static registry", [bun, "scripts/gen-registry.ts"]);
  mkdirSync(resolve(root, "dist"), { recursive: true });
  const t0 = performance.now();
  // Only dev discovery's `import(`file://…`)` may stay dynamic; any other unresolved import fails the build.
  // bytecode: JSC bytecode compiled at build time; start-up no longer parses ~1,500 modules (110 ms → ~35 ms for `--version`).
  const result = await Bun.build({
    entrypoints: ENTRYPOINTS.map((e) => resolve(root, e)),
    compile: { outfile: resolve(root, "dist/tinyhost"), execArgv: [...EXEC_ARGV] },
    minify: true,
    sourcemap: "linked",
    bytecode: true,
    format: "esm",
    target: "bun",
    allowUnresolved: ["file://*"],
    plugins: [staticRequirePlugin],
    throw: false,
  });
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    console.error("build: compile failed");
    process.exit(1);
  }
  console.error(`build: compile done in ${Math.round(performance.now() - t0)} ms`);
  const size = Bun.file(resolve(root, "dist/tinyhost")).size;
  console.log(`dist/tinyhost ${(size / 1024 / 1024).toFixed(1)} MiB`);
}
