/**
 * A real browser for the tests: Debian's `chromium` (installed with apt-get when missing, like
 * nats-server), driven headless by `puppeteer-core` — which never downloads a browser — with a
 * fresh empty profile per launch, removed on close.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import puppeteer, { type Browser } from "puppeteer-core";
import { ensureDebianBinaryAsync } from "./debian-package.ts";

/** Flags that work on this test bed (no sandbox as root, no GPU, no network chatter). */
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Path of the chromium binary: `$TINYHOST_CHROMIUM` (the suite found it), else found or installed now. */
export function chromiumPath(): Promise<string> {
  const fromEnv = process.env.TINYHOST_CHROMIUM;
  return fromEnv ? Promise.resolve(fromEnv) : ensureDebianBinaryAsync("chromium");
}

/** Directory kept after the run for screenshots and other artifacts (printed by the tests that write there). */
export function artifactDir(): string {
  return join(tmpdir(), "tinyhost-test-artifacts");
}

/** Launches headless chromium with {@link CHROMIUM_FLAGS} and a new empty `--user-data-dir`. */
export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "tinyhost-chromium-"));
  const browser = await puppeteer.launch({
    executablePath: await chromiumPath(),
    headless: true,
    args: CHROMIUM_FLAGS,
    userDataDir: profile,
    protocolTimeout: 60_000,
  });
  browser.once("disconnected", () => rmSync(profile, { recursive: true, force: true }));
  return browser;
}
