/**
 * Durable runs in local mode (no cluster, no NATS): the ledger lives in node metadata, as the Go
 * runtime keeps it without JetStream (runtime-spec §4.6), so the records land in the state file.
 * The tick-count example with its counter labelled `tinysystems.io/execution-mode: durable`: every
 * tick that reaches the counter mints a run; the counter's step and the debug node's step it
 * continues are recorded, bounded per node (src/runtime/durable/ledger.ts).
 */
import { afterAll, expect, test } from "bun:test";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort, startProcess, tail, waitUntil, type ManagedProcess } from "../support/process.ts";

const ROOT = resolve(import.meta.dir, "../..");
let proc: ManagedProcess | undefined;
const dir = mkdtempSync(join(tmpdir(), "tinyhost-durable-local-"));

afterAll(async () => {
  await proc?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** `_state/step/*` records of each node in the state file: node name → step key → record. */
function stepRecords(): Map<string, Map<string, { node: string; status: string; emits?: { to: string; stepKey: string }[] }>> {
  const out = new Map<string, Map<string, { node: string; status: string; emits?: { to: string; stepKey: string }[] }>>();
  const file = join(dir, ".tinyhost", "state.json");
  if (!existsSync(file)) return out;
  let nodes: Record<string, { status?: { metadata?: Record<string, string> } }>;
  try {
    nodes = JSON.parse(readFileSync(file, "utf8")).nodes ?? {};
  } catch {
    return out; // mid-rename read
  }
  for (const [name, n] of Object.entries(nodes)) {
    const steps = new Map();
    for (const [k, v] of Object.entries(n.status?.metadata ?? {}))
      if (k.startsWith("_state/step/")) steps.set(k.slice("_state/step/".length), JSON.parse(Buffer.from(v, "base64").toString("utf8")));
    out.set(name, steps);
  }
  return out;
}

test("a node labelled durable starts a run per tick and each step is recorded in its node's metadata", async () => {
  for (const f of readdirSync(join(ROOT, "examples", "tick-count"))) if (f.endsWith(".yaml")) cpSync(join(ROOT, "examples", "tick-count", f), join(dir, f));
  const counterFile = join(dir, "counter.yaml");
  writeFileSync(counterFile, readFileSync(counterFile, "utf8").replace("  labels:\n", "  labels:\n    tinysystems.io/execution-mode: durable\n"));
  const counter = /name: (\S+counter\S*)/.exec(readFileSync(counterFile, "utf8"))![1]!;
  const debug = /name: (\S+debug\S*)/.exec(readFileSync(join(dir, "debug.yaml"), "utf8"))![1]!;
  const log = join(dir, "tinyhost.log");
  proc = startProcess({
    name: "tinyhost",
    cmd: [process.execPath, "src/cli/main.ts", "run", "--local", dir, "--port", String(freePort())],
    logFile: log,
    cwd: ROOT,
    env: { TINYHOST_LOG_LEVEL: "warn" },
  });
  try {
    await waitUntil(
      "two runs recorded on counter and debug",
      async () => {
        const recs = stepRecords();
        const roots = [...(recs.get(counter)?.keys() ?? [])].filter((k) => k.endsWith(".root"));
        return roots.length >= 2 && roots.every((k) => [...(recs.get(debug)?.keys() ?? [])].some((d) => d.startsWith(k.slice(0, 36))));
      },
      30_000,
      200,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- log ---\n${await tail(log, 30)}`);
  }
  const recs = stepRecords();
  const [root, rec] = [...recs.get(counter)!.entries()].find(([k]) => k.endsWith(".root"))!;
  const runId = root.slice(0, 36);
  expect(rec).toMatchObject({ node: counter, status: "done" });
  expect(rec.emits?.map((e) => e.to)).toEqual([`${debug}:in`]);
  const next = rec.emits![0]!.stepKey;
  expect(next.startsWith(`${runId}.`)).toBe(true);
  expect(recs.get(debug)!.get(next)).toMatchObject({ node: debug, status: "done" });
  // the ticker is not labelled: it runs classic and keeps no records
  expect([...recs.entries()].filter(([name, steps]) => name !== counter && name !== debug && steps.size > 0)).toEqual([]);
}, 60_000);
