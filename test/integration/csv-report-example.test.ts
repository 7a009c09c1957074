/**
 * The committed csv-report example (examples/generate.ts csvReport: the encoding-module's
 * components in one flow) run as a user would: `bun src/cli/main.ts run --local <copy>` as a child
 * process, observed through the debug lines it prints. No cluster, no NATS.
 */
import { afterAll, afterEach, expect, test } from "bun:test";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { examples } from "../../examples/generate.ts";
import { startProcess, tail, waitUntil, type ManagedProcess } from "../support/process.ts";

const ROOT = resolve(import.meta.dir, "../..");
const procs: ManagedProcess[] = [];
const temps: string[] = [];

afterEach(async () => {
  for (const p of procs.splice(0)) await p.stop();
});
afterAll(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

test("csv-report: the CSV becomes a semicolon report, JSON rows and a signed token", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tinyhost-csv-report-"));
  temps.push(dir);
  for (const f of readdirSync(join(ROOT, "examples/csv-report"))) if (f.endsWith(".yaml")) cpSync(join(ROOT, "examples/csv-report", f), join(dir, f));
  const log = join(dir, "tinyhost.log");
  procs.push(
    startProcess({
      name: "tinyhost",
      cmd: [process.execPath, "src/cli/main.ts", "run", "--local", dir, "--no-state", "--no-console"],
      logFile: log,
      cwd: ROOT,
      env: { TINYHOST_LOG_LEVEL: "warn" },
    }),
  );
  const text = () => (existsSync(log) ? readFileSync(log, "utf8") : "");
  const want = [
    'debug "Report": {"file":"pods.csv","columns":["name","restarts"],"csv":"name;restarts\\napi-1;0\\nweb, edge;7\\nworker-3;12\\n"}',
    'debug "JSON": {"file":"pods.csv","json":"[{\\"name\\":\\"api-1\\",\\"ready\\":true,\\"restarts\\":0},{\\"name\\":\\"web, edge\\",\\"ready\\":false,\\"restarts\\":7},{\\"name\\":\\"worker-3\\",\\"ready\\":true,\\"restarts\\":12}]"}',
    'debug "Token": {"file":"pods.csv","token":',
  ];
  try {
    await waitUntil("the three debug lines", async () => want.every((w) => text().includes(w)), 60_000);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- log ---\n${await tail(log, 40)}`);
  }
  expect(text()).not.toContain('debug "Signing failed"');
  for (const node of Object.values(examples()["csv-report"]!.nodes)) expect(text()).toContain(`node ${JSON.stringify(node.label)}  ${node.component}  OK`);
}, 90_000);
