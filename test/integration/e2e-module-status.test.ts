/**
 * End to end: what the platform's editor reads about a tinyhost module. The leader of a
 * `tinyhost run` with the bundled components writes its own TinyModule status (runtime-spec §5.2):
 * `name`, `version`, `addr` (`nats://tinymodule.<module>.msg` over NATS, §4.1) and one
 * `components[]` entry per component with every non-internal port and its base64 JSON Schema.
 * That status must say exactly what `tinyhost components --json` prints for the same directory,
 * and list every file of components/.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type KubeClient } from "../../src/k8s/client/index.ts";
import { decodeBase64Json } from "../../src/core/api/bytes.ts";
import { tinyModules } from "../../src/k8s/controllers/index.ts";
import { BUN } from "../support/bun-test.ts";
import { connectControlPlane, type ControlPlane } from "../support/control-plane.ts";
import { startModuleProcess, type ModuleProcess } from "../support/module-process.ts";
import { waitUntil } from "../support/process.ts";

const ROOT = resolve(import.meta.dir, "../..");
const MODULE = "tinyhost";

interface ListedPort {
  name: string;
  label: string;
  source: boolean;
  position: number;
  schema: unknown;
}
interface ListedComponent {
  name: string;
  description: string;
  info: string;
  tags: string[];
  ports: ListedPort[];
}

let cp: ControlPlane;
let kube: KubeClient;
let proc: ModuleProcess | undefined;

beforeAll(async () => void ({ cp, kube } = await connectControlPlane()), 900_000);

afterAll(async () => {
  await proc?.stop(9000);
});

test("the leader's TinyModule status lists every bundled component with the ports and schemas `tinyhost components --json` prints", async () => {
  const natsUrl = process.env.TINYHOST_TEST_NATS_URL;
  if (!natsUrl) throw new Error("TINYHOST_TEST_NATS_URL is not set: run through test/support/run-integration.ts");
  const ns = await cp.newNamespace("e2e-modstatus");
  const dir = mkdtempSync(join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "e2e-modstatus-"));
  const listing = Bun.spawn([BUN, "src/cli/main.ts", "components", "--json", "--dir", "components"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  proc = await startModuleProcess({
    hostname: "pod-0",
    name: MODULE,
    version: "0.3.1",
    namespace: ns,
    kubeconfig: cp.tokenKubeconfig,
    components: "components",
    env: { TINY_NATS_URL: natsUrl },
    logDir: dir,
  });
  expect(await listing.exited).toBe(0);
  const listed = JSON.parse(await new Response(listing.stdout).text()) as ListedComponent[];

  let components: {
    name: string;
    description?: string;
    info?: string;
    tags?: string[];
    ports?: { name: string; label?: string; source?: boolean; position?: number; schema?: string }[];
  }[] = [];
  await waitUntil(
    "the TinyModule status has components",
    async () => {
      const m = await kube.get(tinyModules, MODULE, ns).catch(() => undefined);
      components = (m?.status?.components ?? []) as typeof components;
      return components.length > 0;
    },
    15_000,
  );
  const m = await kube.get(tinyModules, MODULE, ns);
  expect(m.status?.name).toBe(MODULE);
  expect(m.status?.version).toBe("0.3.1");
  expect(m.status?.addr).toBe(`nats://tinymodule.${MODULE}.msg`);

  // Every file of components/ is a listed component, and the status lists the same ones.
  const files = readdirSync(join(ROOT, "components"))
    .filter((f) => f.endsWith(".ts"))
    .map((f) => f.slice(0, -3))
    .sort();
  // The twelve bundled components at least (a developer's own components/ files are listed too).
  expect(files).toEqual(
    expect.arrayContaining([
      "array_split",
      "async",
      "counter",
      "cron",
      "debug",
      "delay",
      "http_request",
      "http_server",
      "router",
      "signal",
      "ticker",
      "transform",
    ]),
  );
  expect(listed.map((c) => c.name).sort()).toEqual(files);
  expect(components.map((c) => c.name).sort()).toEqual(files);

  // Field by field, schemas decoded from base64.
  const decoded: ListedComponent[] = components.map((c) => ({
    name: c.name,
    description: c.description ?? "",
    info: c.info ?? "",
    tags: c.tags ?? [],
    ports: (c.ports ?? []).map((p) => ({
      name: p.name,
      label: p.label ?? "",
      source: p.source ?? false,
      position: p.position ?? 0,
      schema: decodeBase64Json(p.schema, `${c.name}.${p.name}.schema`),
    })),
  }));
  const byName = (l: ListedComponent[]) => [...l].sort((x, y) => x.name.localeCompare(y.name));
  // The listing is what Go's `tools components-info` publishes (src/cli/platform-listing.ts): it adds
  // the tags agent_tool and sync_rpc and shows an agent tool's tool description as its info; the
  // status lists the authored info and tags, as Go's TinyModule controller does. All else is equal.
  const AUTOMATIC_TAGS = ["agent_tool", "sync_rpc"];
  const authored = (l: ListedComponent[]) => byName(l).map((c) => ({ ...c, info: "", tags: c.tags.filter((t) => !AUTOMATIC_TAGS.includes(t)) }));
  expect(authored(decoded)).toEqual(authored(listed));
  for (const c of listed) {
    const status = decoded.find((d) => d.name === c.name)!;
    if (!c.tags.includes("agent_tool")) expect(`${c.name}: ${status.info}`).toBe(`${c.name}: ${c.info}`);
  }
  // An automatic tag is in the status only where the author wrote it (array_filter's Go source lists
  // agent_tool among its tags); array_get and http_server get theirs from the listing alone.
  const statusOf = (name: string) => decoded.find((d) => d.name === name)!;
  expect(listed.find((c) => c.name === "http_server")!.tags).toContain("sync_rpc");
  expect(statusOf("http_server").tags).not.toContain("sync_rpc");
  expect(listed.find((c) => c.name === "array_get")!.tags).toContain("agent_tool");
  expect(statusOf("array_get").tags).not.toContain("agent_tool");
  expect(statusOf("array_filter").tags).toContain("agent_tool");
  // Internal ports never appear (runtime-spec §5.2); settings/control do where the component has them.
  const allPorts = decoded.flatMap((c) => c.ports.map((p) => p.name));
  for (const internal of ["_reconcile", "_client", "_identity"]) expect(allPorts).not.toContain(internal);
  expect(decoded.find((c) => c.name === "http_server")!.ports.map((p) => p.name)).toEqual(
    expect.arrayContaining(["_settings", "_control", "start", "request", "response"]),
  );
}, 60_000);
