/**
 * The console as a person sees it: `tinyhost run --local` on copies of examples/tick-count and
 * examples/hello-api as child processes, the console page in a real headless chromium (Debian's
 * package, puppeteer-core). Checked: every node listed by its label, a hop's message in the
 * stream within a second, the counter's Reset (the count shown and the state file agree), the
 * ticker's Stop/Start, an error hop shown at its node. Screenshots are kept under the test
 * artifact directory (printed).
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Browser, Page } from "puppeteer-core";
import { helloApi, tickCount } from "../../examples/generate.ts";
import { nodeNameOf } from "../../src/cli/scaffold/flow-builder.ts";
import { artifactDir, launchBrowser } from "../support/browser.ts";
import { freePort, startProcess, tail, waitUntil, type ManagedProcess } from "../support/process.ts";

// Functions passed to page.evaluate/waitForFunction run in the browser; the project compiles without
// the DOM library, so the page's globals are declared loosely for this file only.
declare const document: any, window: any, MutationObserver: any;
type HTMLElement = any;
type HTMLTextAreaElement = any;

const ROOT = resolve(import.meta.dir, "../..");
const TIMEOUT = 300_000;
// How long a page waits for what the flow does: generous, so a loaded machine (CI beside other
// work) is slow rather than red; the assertions, not these limits, are what the tests check.
const WAIT = 45_000;

let browser: Browser;
const procs: ManagedProcess[] = [];
const temps: string[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
}, 600_000);
afterAll(async () => {
  await browser?.close();
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});
afterEach(async () => {
  for (const p of procs.splice(0)) await p.stop();
});

interface Local {
  dir: string;
  log: string;
  url: string;
  httpPort: number;
}

/** `run --local` on a copy of examples/<name>, its console on a free port; resolves once the console's URL is printed. */
async function runExample(name: string): Promise<Local> {
  const dir = mkdtempSync(join(tmpdir(), `tinyhost-console-${name}-`));
  temps.push(dir);
  for (const f of readdirSync(join(ROOT, "examples", name))) if (f.endsWith(".yaml")) cpSync(join(ROOT, "examples", name, f), join(dir, f));
  const log = join(dir, "..", `${name}-${Date.now()}.log`);
  const httpPort = freePort();
  const proc = startProcess({
    name: `run --local ${name}`,
    cmd: [process.execPath, "src/cli/main.ts", "run", "--local", dir, "--port", String(httpPort), "--console", "127.0.0.1:0"],
    cwd: ROOT,
    logFile: log,
    env: { TINYHOST_LOG_LEVEL: "warn" },
  });
  procs.push(proc);
  let url = "";
  try {
    await waitUntil(
      "the console's URL",
      async () => {
        const m = /console: (http:\/\/127\.0\.0\.1:\d+)\//.exec(existsSync(log) ? readFileSync(log, "utf8") : "");
        if (m) url = m[1]!;
        return url !== "";
      },
      30_000,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- log ---\n${await tail(log, 30)}`);
  }
  return { dir, log, url, httpPort };
}

async function open(url: string): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 860 });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForSelector("#conn[data-state='live']", { timeout: WAIT });
  expect(errors).toEqual([]);
  return page;
}

/** Labels of the nodes the graph shows. */
const labels = (page: Page) => page.$$eval("g.node .node-label", (els) => els.map((e) => e.textContent ?? "").sort());

/** The text of a field of node `name`'s `_control` on its graph box (e.g. `count: 3`). */
const field = (page: Page, name: string, key: string) =>
  page.$eval(`g.node[data-node="${name}"]`, (g, k) => g.querySelector(`[data-field="${k}"]`)?.textContent ?? "", key).catch(() => "");

/** The counter's `_state/count` in the state file; 0 when absent (the counter then shows its Initial, 0). */
function stateCount(dir: string, counter: string): number | undefined {
  try {
    const b64 = JSON.parse(readFileSync(join(dir, ".tinyhost", "state.json"), "utf8")).nodes[counter]?.status?.metadata?.["_state/count"];
    return b64 ? Number(Buffer.from(b64, "base64").toString("utf8")) : 0;
  } catch {
    return undefined; // not written yet, or mid-rename
  }
}

async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(artifactDir(), { recursive: true });
  const path = join(artifactDir(), `${name}.png`);
  await page.screenshot({ path });
  console.error(`[console-browser] screenshot: ${path}`);
  return path;
}

async function pressButton(page: Page, node: string, button: string): Promise<void> {
  await page.locator(`g.node[data-node="${node}"]`).click();
  await page.waitForSelector(`#panel [data-button="${button}"]`, { timeout: WAIT });
  await page.locator(`#panel [data-button="${button}"]`).click();
  await page.waitForFunction(() => /ok|failed|no result/.test(document.querySelector('#panel [data-answer="_control"]')?.textContent ?? ""), { timeout: WAIT });
  expect(await page.$eval('#panel [data-answer="_control"]', (e) => e.textContent)).not.toStartWith("failed");
  await page.locator(`g.node[data-node="${node}"]`).click(); // unselect: the stream shows every hop again
}

describe("the console in a browser", () => {
  test(
    "tick-count: nodes by label, hops in the stream within a second, Stop/Reset/Start, an error at its node",
    async () => {
      const desc = tickCount();
      const counter = nodeNameOf(desc, "counter");
      const ticker = nodeNameOf(desc, "ticker");
      const local = await runExample("tick-count");
      const page = await open(`${local.url}/`);

      await page.waitForFunction(() => document.querySelectorAll("g.node").length === 3, { timeout: WAIT });
      expect(await labels(page)).toEqual(["Count ticks", "Every second", "Last tick"]);
      expect(await page.$$eval("g.edge text", (els) => els.map((e) => e.textContent).sort())).toEqual(["out → in", "out → in"]);

      // A hop we cause: its row appears within a second of the hop's end (stream batches are 100 ms).
      await page.evaluate(() => {
        const w = window as unknown as { arrived: Record<string, number> };
        w.arrived = {};
        new MutationObserver(() => {
          for (const tr of document.querySelectorAll("#stream tr.hop")) w.arrived[(tr as HTMLElement).dataset.seq!] ??= Date.now();
        }).observe(document.querySelector("#stream tbody")!, { childList: true });
      });
      const sent = (await (
        await fetch(`${local.url}/api/send`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ node: "Last tick", port: "in", data: { probe: 1 } }),
        })
      ).json()) as { result: string };
      expect(sent.result).toBe("empty");
      const probe = await page.waitForFunction(
        () =>
          [...document.querySelectorAll("#stream tr.hop")]
            .map((tr) => tr as HTMLElement)
            .find((tr) => tr.querySelector("td.payload")?.textContent === '{"probe":1}')?.dataset.seq,
        { timeout: WAIT },
      );
      const seq = (await probe.jsonValue()) as string;
      const hop = ((await (await fetch(`${local.url}/api/hops`)).json()) as { hops: { seq: number; at: number; ms: number }[] }).hops.find(
        (h) => String(h.seq) === seq,
      )!;
      const arrived = await page.evaluate((s) => (window as unknown as { arrived: Record<string, number> }).arrived[s]!, seq);
      expect(arrived - (hop.at + hop.ms)).toBeLessThan(1000);
      expect(await page.$eval(`#stream tr[data-seq="${seq}"] td:nth-child(2)`, (e) => e.textContent)).toBe("signal (outside)");
      expect(await page.$eval(`#stream tr[data-seq="${seq}"] td.to`, (e) => e.textContent)).toBe("Last tick : in");

      // Stop the ticker, Reset the counter: the count shown and the state file agree on 0.
      await pressButton(page, ticker, "stop");
      await page.waitForFunction(
        (n) => document.querySelector(`g.node[data-node="${n}"] [data-field="status"]`)?.textContent === "status: Not running",
        { timeout: WAIT },
        ticker,
      );
      await pressButton(page, counter, "reset");
      await page.waitForFunction(
        (n) => document.querySelector(`g.node[data-node="${n}"] [data-field="count"]`)?.textContent === "count: 0",
        { timeout: WAIT },
        counter,
      );
      await waitUntil("the state file's count is reset", async () => stateCount(local.dir, counter) === 0, WAIT);
      expect(await field(page, counter, "count")).toBe("count: 0");

      // Start again: it counts from 0, and once stopped the shown count and the state file agree.
      await pressButton(page, ticker, "start");
      await page.waitForFunction(
        (n) => Number(document.querySelector(`g.node[data-node="${n}"] [data-field="count"]`)?.textContent?.split(": ")[1]) >= 2,
        { timeout: WAIT },
        counter,
      );
      await pressButton(page, ticker, "stop");
      await waitUntil(
        "the shown count equals the state file's",
        async () => {
          const shown = Number((await field(page, counter, "count")).split(": ")[1]);
          return shown >= 2 && shown === stateCount(local.dir, counter);
        },
        WAIT,
      );

      // An error hop: a message the counter cannot decode shows as its error, on its box and in the stream.
      await page.locator(`g.node[data-node="${counter}"]`).click();
      await page.waitForSelector("#panel [data-send-port]");
      await page.select("#panel [data-send-port]", "in");
      await page.$eval("#panel [data-send-data]", (e) => void ((e as HTMLTextAreaElement).value = '{"by":"many"}'));
      await page.locator("#panel [data-send]").click();
      await page.waitForFunction(() => (document.querySelector('#panel [data-answer="send"]')?.textContent ?? "").startsWith("failed:"), { timeout: WAIT });
      await page.waitForFunction(
        (n) => (document.querySelector(`g.node[data-node="${n}"] .node-error`)?.textContent ?? "").includes("must be an integer"),
        { timeout: WAIT },
        counter,
      );
      expect(await page.$eval("#panel [data-last-error]", (e) => e.textContent)).toContain("at port in:");
      expect(await page.$$eval("#stream tr.fail td.result", (els) => els.map((e) => e.textContent ?? ""))).toContainEqual(
        expect.stringContaining('$.by must be an integer, got string "many"'),
      );
      await page.locator(`g.node[data-node="${counter}"]`).click();
      await pressButton(page, ticker, "start");
      await page.waitForFunction(() => document.querySelectorAll("#stream tr.hop").length >= 12, { timeout: WAIT });
      await screenshot(page, "console-tick-count");
      await page.close();
    },
    TIMEOUT,
  );

  test(
    "hello-api: nodes by label, an HTTP request's hops in the stream, an error hop shown at its node",
    async () => {
      const desc = helloApi();
      const router = nodeNameOf(desc, "router");
      const local = await runExample("hello-api");
      const page = await open(`${local.url}/`);
      await page.waitForFunction(() => document.querySelectorAll("g.node").length === 4, { timeout: WAIT });
      expect(await labels(page)).toEqual(["Build hello JSON", "HTTP server", "Route by method", "Start server"]);

      await waitUntil(
        "the http_server listens",
        async () => (await fetch(`http://127.0.0.1:${local.httpPort}/hello`).catch(() => undefined))?.status === 200,
        WAIT,
      );
      await page.waitForFunction(
        (n) =>
          [...document.querySelectorAll(`#stream tr.hop[data-to="${n}"]`)].some((tr) =>
            (tr.querySelector("td.payload")?.textContent ?? "").includes('"method":"GET"'),
          ),
        { timeout: WAIT },
        router,
      );

      // The router cannot decode a list where its conditions belong: the error shows at the router.
      const a = (await (
        await fetch(`${local.url}/api/send`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ node: "Route by method", port: "input", data: { conditions: "not a list" } }),
        })
      ).json()) as { result: string; error: string };
      expect(a.result).toBe("fail");
      await page.waitForFunction((n) => (document.querySelector(`g.node[data-node="${n}"] .node-error`)?.textContent ?? "") !== "", { timeout: WAIT }, router);
      await page.locator(`g.node[data-node="${router}"]`).click();
      await page.waitForSelector("#panel [data-last-error]");
      expect(await page.$eval("#panel [data-last-error]", (e) => e.textContent)).toContain(a.error.slice(0, 40));
      await screenshot(page, "console-hello-api");
      await page.close();
    },
    TIMEOUT,
  );
});
