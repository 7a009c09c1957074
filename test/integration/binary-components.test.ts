/**
 * Functions without a rebuild (issue 17): the compiled binary, run in an empty directory with a
 * components directory beside it, serves a component file it was never built with (importing
 * "tinyhost" from the SDK embedded in the binary), reports a broken file by path and skips it,
 * and picks up an edit of the file while it runs — in cluster mode, with the directory given by
 * `TINYHOST_COMPONENTS_DIR` as the image does, laid out like a ConfigMap volume (`..data` swap).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createKubeClient, type KubeClient } from "../../src/k8s/client/index.ts";
import { tinyModules } from "../../src/k8s/controllers/index.ts";
import { getControlPlane, type ControlPlane } from "../support/control-plane.ts";
import { startModuleProcess, type ModuleProcess } from "../support/module-process.ts";
import { startProcess, tail, waitUntil } from "../support/process.ts";

const ROOT = resolve(import.meta.dir, "../..");
const BINARY = join(ROOT, "dist/tinyhost");

const greet = (description: string) => `import { defineComponent, source, target, Type } from "tinyhost";
const In: { who: string } | undefined = undefined; void In;
export default defineComponent({
  info: { name: "greet", description: ${JSON.stringify(description)}, info: "says hello" },
  ports: () => [target("in", Type.Object({ who: Type.String() })), source("out", Type.Object({ text: Type.String() }))],
  handle: (_c, output, _p, d) => output("out", { text: "hello " + d.who }),
});
`;

let cp: ControlPlane;
let kube: KubeClient;
let proc: ModuleProcess | undefined;
let work: string;

/** Writes the files as kubelet lays out a ConfigMap: `..<ts>/` dir, `..data` link swapped by rename, file links. */
function configMap(dir: string, files: Record<string, string>, generation: number): void {
  const data = join(dir, `..2026_${generation}`);
  mkdirSync(data, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(data, name), text);
  symlinkSync(`..2026_${generation}`, join(dir, "..data_tmp"));
  renameSync(join(dir, "..data_tmp"), join(dir, "..data"));
  for (const name of Object.keys(files)) {
    try {
      symlinkSync(`..data/${name}`, join(dir, name));
    } catch {
      // the link exists from an earlier generation and now points at the new one
    }
  }
}

beforeAll(async () => {
  const r = Bun.spawnSync([process.execPath, "scripts/build.ts"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`npm run build failed:\n${r.stderr.toString()}`);
  cp = await getControlPlane();
  kube = await createKubeClient({ kubeconfig: cp.tokenKubeconfig, env: {} });
  work = mkdtempSync(join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "binary-components-"));
  mkdirSync(join(work, "components"));
}, 900_000);

afterAll(async () => {
  await proc?.stop(9000);
});

test("the binary lists a component file beside it next to its bundled set and names a broken file", () => {
  const dir = join(work, "listing");
  mkdirSync(dir);
  writeFileSync(join(dir, "greet.ts"), greet("Greet"));
  writeFileSync(join(dir, "broken.ts"), "export default {{ broken");
  const r = Bun.spawnSync([BINARY, "components", "--components", dir, "--json"], {
    cwd: work,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, TINYHOST_LOG_LEVEL: "silent" },
  });
  expect(r.exitCode).toBe(0);
  const names = (JSON.parse(r.stdout.toString()) as { name: string }[]).map((c) => c.name);
  expect(names).toContain("greet");
  expect(names).toContain("js_eval");
  expect(names).toContain("http_server");
  expect(r.stderr.toString()).toContain("listing/broken.ts: import failed:");
});

test("in cluster mode the binary serves a ConfigMap-mounted component and picks up an edit without a restart", async () => {
  const natsUrl = process.env.TINYHOST_TEST_NATS_URL;
  if (!natsUrl) throw new Error("TINYHOST_TEST_NATS_URL is not set: run through test/support/run-integration.ts");
  const ns = await cp.newNamespace("bin-components");
  const mount = join(work, "components");
  configMap(mount, { "greet.ts": greet("Greet v1") }, 1);
  proc = await startModuleProcess({
    hostname: "pod-0",
    name: "tinyhost",
    namespace: ns,
    kubeconfig: cp.tokenKubeconfig,
    components: "",
    command: [BINARY],
    cwd: work,
    env: { TINY_NATS_URL: natsUrl, TINYHOST_COMPONENTS_DIR: mount },
    logDir: work,
  });
  const description = async () => {
    const m = await kube.get(tinyModules, "tinyhost", ns).catch(() => undefined);
    return (m?.status?.components ?? []).find((c) => c.name === "greet")?.description;
  };
  await waitUntil("the TinyModule status lists greet v1", async () => (await description()) === "Greet v1", 60_000);
  const m = await kube.get(tinyModules, "tinyhost", ns);
  expect((m.status?.components ?? []).map((c) => c.name)).toContain("js_eval");

  configMap(mount, { "greet.ts": greet("Greet v2") }, 2);
  await waitUntil("the edit reaches the TinyModule status", async () => (await description()) === "Greet v2", 60_000);
}, 300_000);

test("in local mode the binary names a --components directory at start-up and reloads an edit of its file", async () => {
  const dir = join(work, "local");
  const comps = join(dir, "comps");
  const flow = join(dir, "flow");
  mkdirSync(comps, { recursive: true });
  mkdirSync(flow, { recursive: true });
  writeFileSync(join(comps, "greet.ts"), greet("Greet v1"));
  writeFileSync(
    join(flow, "greet.yaml"),
    `apiVersion: operator.tinysystems.io/v1alpha1
kind: TinyNode
metadata:
  name: f1.tinyhost.greet-a1b2c
spec:
  module: tinyhost
  component: greet
`,
  );
  const log = join(work, "local-binary.log");
  const p = startProcess({
    name: "binary run --local",
    cmd: [BINARY, "run", "--local", flow, "--no-state", "--no-console", "--components", comps],
    cwd: work,
    logFile: log,
    env: { TINYHOST_LOG_LEVEL: "warn" },
  });
  try {
    const seen = async (text: string) => (await Bun.file(log).text()).includes(text);
    await waitUntil("the node runs", () => seen("OK"), 30_000).catch(async (err) => {
      throw new Error(`${(err as Error).message}\n${await tail(log, 30)}`);
    });
    expect(await seen("bundled + 1 from local/comps")).toBe(true);
    await Bun.sleep(300); // the watch opens after the first reconcile
    writeFileSync(join(comps, "greet.ts"), greet("Greet v2"));
    await waitUntil("the reload", () => seen("(greet): recreating 1 node"), 30_000).catch(async (err) => {
      throw new Error(`${(err as Error).message}\n${await tail(log, 30)}`);
    });
  } finally {
    await p.stop();
  }
}, 120_000);
