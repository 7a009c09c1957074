/**
 * The runs-api and agent-loop examples in local mode, run as a user runs them (`tinyhost run
 * --local <copy of the example>`): runs-api answers a run id behind Basic auth and then the run's
 * status from the step ledger; agent-loop's form starts a bounded loop whose progress lands in the
 * chat widget's state and whose outcome lands under the form's button, both in the state file.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort, startProcess, tail, waitUntil, type ManagedProcess } from "../support/process.ts";

const ROOT = resolve(import.meta.dir, "../..");
const dirs: string[] = [];
const procs: ManagedProcess[] = [];

afterAll(async () => {
  for (const p of procs) await p.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Runs a copy of examples/<name> in local mode; resolves once `ready` shows in its log. */
async function runExample(name: string, ready: string, port = freePort()): Promise<{ dir: string; log: string; port: number }> {
  const dir = mkdtempSync(join(tmpdir(), `tinyhost-${name}-`));
  dirs.push(dir);
  for (const f of readdirSync(join(ROOT, "examples", name))) if (f.endsWith(".yaml")) cpSync(join(ROOT, "examples", name, f), join(dir, f));
  const log = join(dir, "tinyhost.log");
  procs.push(
    startProcess({
      name: "tinyhost",
      cmd: [process.execPath, "src/cli/main.ts", "run", "--local", dir, "--port", String(port), "--no-console"],
      logFile: log,
      cwd: ROOT,
      env: { TINYHOST_LOG_LEVEL: "warn" },
    }),
  );
  try {
    await waitUntil(ready, async () => existsSync(log) && readFileSync(log, "utf8").includes(ready), 60_000);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- log ---\n${await tail(log, 40)}`);
  }
  return { dir, log, port };
}

/** `_state/<key>` of the node whose name contains `component` in the example's state file, decoded. */
function stateOf(dir: string, component: string, key: string): string | undefined {
  const file = join(dir, ".tinyhost", "state.json");
  if (!existsSync(file)) return undefined;
  try {
    const nodes = JSON.parse(readFileSync(file, "utf8")).nodes as Record<string, { status?: { metadata?: Record<string, string> } }>;
    const entry = Object.entries(nodes).find(([name]) => name.includes(`.${component}-`));
    const b64 = entry?.[1].status?.metadata?.[`_state/${key}`];
    return b64 === undefined ? undefined : Buffer.from(b64, "base64").toString("utf8");
  } catch {
    return undefined; // read mid-rename: try again
  }
}

const basic = (user: string, password: string) => ({ authorization: "Basic " + Buffer.from(`${user}:${password}`).toString("base64") });

describe("examples in local mode", () => {
  test("runs-api: POST /runs answers a run id, GET /runs/<id> the run done; no credentials, 401", async () => {
    const { port } = await runExample("runs-api", "listening on http://localhost:");
    const url = `http://127.0.0.1:${port}`;
    const started = await fetch(`${url}/runs`, { method: "POST", body: '{"item":"book"}', headers: basic("ops", "demo") });
    expect(started.status).toBe(202);
    const { runID } = (await started.json()) as { runID: string };
    expect(runID).toMatch(/^[0-9a-f-]{36}$/);
    const status = await fetch(`${url}/runs/${runID}`, { headers: basic("ops", "demo") });
    expect(status.status).toBe(200);
    const body = (await status.json()) as { found: boolean; complete: boolean; steps: { node: string }[] };
    expect(body).toMatchObject({ runID, found: true, complete: true, failed: false, pendingSteps: 0 });
    expect(body.steps.map((s) => s.node.split(".")[2]!.replace(/-[0-9a-f]{5}$/, "")).sort()).toEqual(["debug", "delay", "run-start"]);
    expect((await fetch(`${url}/runs/${runID}`, { headers: basic("ops", "nope") })).status).toBe(401);
    expect((await fetch(`${url}/runs`, { method: "POST" })).status).toBe(401);
  }, 90_000);

  test("agent-loop: the form's start runs the loop until the budget cuts it; progress in the chat thread, the outcome on the form", async () => {
    const { dir } = await runExample("agent-loop", 'node "Progress"');
    await waitUntil("the form's result in the state file", async () => stateOf(dir, "form", "result") !== undefined, 60_000);
    expect(stateOf(dir, "form", "result")).toBe("stopped at pass 6: iteration limit reached (5)");
    const thread = JSON.parse(stateOf(dir, "chat", "thread")!) as { kind: string; role: string; text: string }[];
    // each pass's message is sent beside its 300 ms model call: order them by text, not by arrival
    expect(thread.map((e) => e.text).sort()).toEqual([
      "pass 1: 0 tokens so far, 4 passes left",
      "pass 2: 150 tokens so far, 3 passes left",
      "pass 3: 300 tokens so far, 2 passes left",
      "pass 4: 450 tokens so far, 1 passes left",
      "pass 5: 600 tokens so far, 0 passes left",
      "stopped: iteration limit reached (5)",
    ]);
    expect(thread.find((e) => e.text.startsWith("stopped"))).toMatchObject({ kind: "reply", role: "system" });
  }, 90_000);
});
