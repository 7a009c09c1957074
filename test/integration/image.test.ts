/**
 * The images `npm run image` builds, built for real (from the build cache after the first run:
 * ~/.cache/tinyhost/images) and checked where a node would run them: imported into a containerd
 * of the test's own (test/support/containerd.ts) and started with `ctr run` under the chart's
 * securityContext as far as ctr expresses it (read-only root, no capabilities, no new privileges,
 * default seccomp, the image's own user, a tmpfs at /tmp).
 *
 * - tinyhost's image: the Dockerfile's config (ENTRYPOINT, USER 65532, ENV, ports), two layers
 *   (Debian base + /manager), its size; /manager answers `--version` and `run --help`; the
 *   entrypoint is `run`; it cannot write its root filesystem.
 * - the NATS image: Debian's nats-server as uid 1000 serves JetStream with the config
 *   `tinyhost provision` writes (src/provision/nats.ts), on a read-only root.
 * - the trace collector image (the platform's, from the Go module proxy): as uid 10001 on a
 *   read-only root it reads its config and answers gRPC health and an OTLP/gRPC trace export on
 *   one port, what provision's probes and the modules' OTLP_DSN use.
 * - the Go peer image: the static peer at /manager, uid 65532, the SDK's commands.
 * - `npm run image --load`: the CLI prints the reference and archive, reuses the cached build
 *   (same image id, archive not rewritten) and loads the image into the given containerd.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { credentials, makeGenericClientConstructor, type ServiceError } from "@grpc/grpc-js";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { imageEnv } from "../../bench/lib/image-env.ts";
import { openBuildContext, type BuiltImage } from "../../scripts/image/build-context.ts";
import { importImage } from "../../scripts/image/containerd.ts";
import { buildGoPeerImage, buildOtelCollectorImage } from "../../scripts/image/go-tool-images.ts";
import { buildModuleImage } from "../../scripts/image/module-image.ts";
import { buildNatsImage } from "../../scripts/image/nats-image.ts";
import { MODULE_BINARY, MODULE_UID } from "../../src/provision/index.ts";
import { normalizeImageReference } from "../../src/provision/image-ref.ts";
import { natsConfig, NATS_UID } from "../../src/provision/nats.ts";
import { OTEL_UID } from "../../src/provision/otel.ts";
import { SDK_CHECKED_VERSION, SDK_VERSION } from "../../src/core/version.ts";
import { startContainerd, type PrivateContainerd } from "../support/containerd.ts";
import { freePort, waitUntil } from "../support/process.ts";

const ROOT = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "image-"));
const buildLog = join(work, "build.log");
let containerd: PrivateContainerd;
let tinyhost: BuiltImage;
let nats: BuiltImage;
let peer: BuiltImage;
let collector: BuiltImage;

/** One entry of a docker-archive's manifest.json. */
interface ArchiveManifest {
  Config: string;
  RepoTags: string[];
  Layers: string[];
}

function archiveManifest(archive: string): ArchiveManifest[] {
  const r = Bun.spawnSync(["tar", "-xOf", archive, "manifest.json"], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`tar -xOf ${archive} manifest.json: ${r.stderr.toString()}`);
  return JSON.parse(r.stdout.toString()) as ArchiveManifest[];
}

/** Sizes of the archive's members (bytes), by name. */
function archiveSizes(archive: string): Map<string, number> {
  const r = Bun.spawnSync(["tar", "-tvf", archive], { stdout: "pipe" });
  const sizes = new Map<string, number>();
  for (const line of r.stdout.toString().trim().split("\n")) {
    const parts = line.trim().split(/\s+/);
    sizes.set(parts.at(-1)!, Number(parts[2]));
  }
  return sizes;
}

function archiveConfig(
  archive: string,
  config: string,
): { config: { User?: string; Env?: string[]; Entrypoint?: string[]; ExposedPorts?: Record<string, unknown> } } {
  return JSON.parse(Bun.spawnSync(["tar", "-xOf", archive, config], { stdout: "pipe" }).stdout.toString());
}

beforeAll(async () => {
  const ctx = await openBuildContext({ file: buildLog });
  try {
    tinyhost = await buildModuleImage(ctx);
    nats = await buildNatsImage(ctx);
    peer = await buildGoPeerImage(ctx);
    collector = await buildOtelCollectorImage(ctx);
  } catch (e) {
    throw new Error(`${(e as Error).message}\n(build log: ${buildLog})`);
  }
  containerd = await startContainerd();
  for (const image of [tinyhost, nats, peer, collector]) await importImage(image.archive, { address: containerd.address, log: { file: buildLog } });
}, 1_800_000);

afterAll(async () => {
  await containerd?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe("tinyhost's image, built from the Dockerfile", () => {
  test("is tagged tinyhost:<version>, the default image of `tinyhost provision`", () => {
    expect(tinyhost.ref).toBe(`tinyhost:${pkg.version}`);
    expect(archiveManifest(tinyhost.archive).map((m) => m.RepoTags)).toEqual([[normalizeImageReference(tinyhost.ref)]]);
  });

  test("carries the Dockerfile's ENTRYPOINT, USER 65532, ENV and ports", () => {
    const [manifest] = archiveManifest(tinyhost.archive);
    const { config } = archiveConfig(tinyhost.archive, manifest!.Config);
    expect(config.Entrypoint).toEqual([MODULE_BINARY, "run"]);
    expect(config.User).toBe(`${MODULE_UID}:${MODULE_UID}`);
    for (const [k, v] of Object.entries(imageEnv())) expect(config.Env).toContain(`${k}=${v}`);
    expect(Object.keys(config.ExposedPorts ?? {}).sort()).toEqual(["8081/tcp", "8483/tcp"]);
  });

  test("is two layers, the Debian base and /manager, of a size recorded here", () => {
    const [manifest] = archiveManifest(tinyhost.archive);
    expect(manifest!.Layers.length).toBe(2);
    const sizes = archiveSizes(tinyhost.archive);
    const [base, binary] = manifest!.Layers.map((l) => sizes.get(l) ?? Number.NaN);
    const mib = (n: number) => (n / 1048576).toFixed(1);
    console.log(`image: tinyhost ${mib(base! + binary!)} MiB uncompressed (Debian base ${mib(base!)} MiB + /manager layer ${mib(binary!)} MiB)`);
    // The slim base: Debian's own -slim image is ~75 MiB; a full Debian or doc/locale files would be far over.
    expect(base!).toBeLessThan(100 * 1048576);
    expect(base!).toBeGreaterThan(40 * 1048576);
    // The compiled binary (runtime + bundled components + CRDs) is the rest; the whole stays under 300 MiB.
    expect(binary!).toBeGreaterThan(50 * 1048576);
    expect(base! + binary!).toBeLessThan(300 * 1048576);
  });

  test("is in containerd's k8s.io namespace under the name a pod spec's `image: tinyhost:<version>` resolves to", async () => {
    const names = (await containerd.ctr(["images", "ls", "-q"])).trim().split("\n");
    expect(names).toContain(normalizeImageReference(tinyhost.ref));
  });

  test("/manager --version runs under the chart's securityContext", async () => {
    const r = await containerd.runImage(normalizeImageReference(tinyhost.ref), [MODULE_BINARY, "--version"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`${pkg.version} (Go SDK ${SDK_VERSION}, tested against ${SDK_CHECKED_VERSION})`);
  });

  test("/manager run --help answers; the bare entrypoint is `run`, which refuses to start without its settings", async () => {
    const help = await containerd.runImage(normalizeImageReference(tinyhost.ref), [MODULE_BINARY, "run", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("tinyhost run --name <module> --namespace <ns>");
    const bare = await containerd.runImage(normalizeImageReference(tinyhost.ref), []);
    expect(bare.code).not.toBe(0);
    expect(bare.stdout + bare.stderr).toStartWith("tinyhost run: ");
  });

  test("runs as 65532 with its ENV, a read-only root and a writable /tmp", async () => {
    const script = "id -u; id -g; (touch /probe 2>/dev/null && echo root-writable) || echo root-read-only; touch /tmp/probe && echo tmp-writable; env";
    const r = await containerd.runImage(normalizeImageReference(tinyhost.ref), ["/bin/sh", "-c", script]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines.slice(0, 4)).toEqual([String(MODULE_UID), String(MODULE_UID), "root-read-only", "tmp-writable"]);
    for (const [k, v] of Object.entries(imageEnv())) expect(lines).toContain(`${k}=${v}`);
  });
});

describe("the NATS image (Debian's nats-server)", () => {
  test("runs as uid 1000 and serves JetStream with provision's config on a read-only root", async () => {
    const conf = join(work, "nats.conf");
    writeFileSync(conf, natsConfig());
    // The container has no network of its own: the script probes /healthz from inside with bash's /dev/tcp.
    const probe = [
      "/usr/sbin/nats-server --config /etc/nats-config/nats.conf & pid=$!",
      "for i in $(seq 1 100); do",
      "  if exec 3<>/dev/tcp/127.0.0.1/8222 2>/dev/null; then printf 'GET /healthz?js-enabled-only=true HTTP/1.0\\r\\n\\r\\n' >&3; body=$(cat <&3); exec 3<&-; break; fi",
      "  sleep 0.1",
      "done",
      'echo "uid=$(id -u)"; echo "$body" | tail -n 1; ls /data/jetstream >/dev/null && echo store-ok',
      "kill -TERM $pid; wait $pid",
    ].join("\n");
    const r = await containerd.runImage(normalizeImageReference(nats.ref), ["/bin/bash", "-c", probe], {
      env: { SERVER_NAME: "nats-0", NATS_TOKEN: "image-test-token" },
      mounts: [`type=bind,src=${conf},dst=/etc/nats-config/nats.conf,options=rbind:ro`, "type=tmpfs,src=tmpfs,dst=/data,options=nosuid:nodev:mode=1777"],
    });
    expect(r.stdout).toContain(`uid=${NATS_UID}`);
    expect(r.stdout).toContain('{"status":"ok"}');
    expect(r.stdout).toContain("store-ok");
    expect(nats.ref).toMatch(/^tinyhost-nats:\d+\.\d+\.\d+$/);
  });
});

/**
 * One unary gRPC call with raw protobuf bytes (what the kubelet's gRPC probe and an OTLP exporter
 * send): resolves to the response bytes.
 */
function grpcCall(address: string, path: string, request: Uint8Array): Promise<Buffer> {
  const Client = makeGenericClientConstructor({}, "Raw");
  const client = new Client(address, credentials.createInsecure());
  return new Promise<Buffer>((resolve, reject) => {
    client.makeUnaryRequest(
      path,
      (b: Uint8Array) => Buffer.from(b),
      (b: Buffer) => b,
      request,
      { deadline: Date.now() + 5_000 },
      (err: ServiceError | null, res?: Buffer) => {
        client.close();
        if (err) reject(err);
        else resolve(res ?? Buffer.alloc(0));
      },
    );
  });
}

describe("the trace collector image (the platform's, from the Go module proxy)", () => {
  test("runs as uid 10001 from /config.yaml and answers gRPC health and an OTLP trace export on one port", async () => {
    const [manifest] = archiveManifest(collector.archive);
    const { config } = archiveConfig(collector.archive, manifest!.Config);
    expect(config.User).toBe(`${OTEL_UID}:${OTEL_UID}`);
    expect(collector.ref).toMatch(/^tinyhost-otel-collector:\d+\.\d+\.\d+$/);
    const port = freePort();
    const id = `tinyhost-test-collector-${process.pid}`;
    // The host's network, so this process can call it; the port from the environment (the image's config says 2345).
    const running = containerd.runImage(normalizeImageReference(collector.ref), [], { netHost: true, id, env: { GRPC_LISTEN_ADDRESS: `127.0.0.1:${port}` } });
    try {
      // grpc.health.v1.Health/Check with an empty service name; SERVING is field 1 = 1.
      let health: Buffer = Buffer.alloc(0);
      await waitUntil(
        "the collector's gRPC health",
        async () => {
          health = await grpcCall(`127.0.0.1:${port}`, "/grpc.health.v1.Health/Check", new Uint8Array());
          return true;
        },
        30_000,
        200,
      );
      expect([...health]).toEqual([0x08, 0x01]);
      // An empty ExportTraceServiceRequest is accepted: the OTLP trace service is on the same port.
      const exported = await grpcCall(`127.0.0.1:${port}`, "/opentelemetry.proto.collector.trace.v1.TraceService/Export", new Uint8Array());
      expect(exported.length).toBe(0);
    } finally {
      await containerd.ctr(["task", "kill", "--signal", "SIGTERM", id]).catch(() => undefined);
      const r = await running;
      expect(r.stderr).toContain("tinysystems otel gRPC server is starting");
    }
  });
});

describe("the Go peer module's image", () => {
  test("is the static peer at /manager as uid 65532, with the SDK's commands", async () => {
    const [manifest] = archiveManifest(peer.archive);
    const { config } = archiveConfig(peer.archive, manifest!.Config);
    expect(config.User).toBe("65532:65532");
    expect(config.Entrypoint).toEqual([MODULE_BINARY]);
    expect(manifest!.Layers.length).toBe(1);
    const r = await containerd.runImage(normalizeImageReference(peer.ref), [MODULE_BINARY, "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("run");
  });
});

describe("npm run image", () => {
  test("reuses the cached build, prints the reference and archive, and loads the image with --load", async () => {
    const before = statSync(tinyhost.archive).mtimeMs;
    const namespace = "tinyhost-cli-test";
    const proc = Bun.spawn([process.execPath, "scripts/image.ts", "--load", containerd.address, "--namespace", namespace], {
      cwd: ROOT,
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(code, err.slice(-2000)).toBe(0);
    const lines = out.trim().split("\n");
    expect(lines[0]).toBe(`image: ${tinyhost.ref}`);
    expect(lines[1]).toBe(`archive: ${tinyhost.archive}`);
    expect(lines[2]).toStartWith(`loaded: ${tinyhost.ref} into ${containerd.address} (namespace ${namespace})`);
    expect((await containerd.ctr(["images", "ls", "-q"], namespace)).trim().split("\n")).toEqual([normalizeImageReference(tinyhost.ref)]);
    // Same inputs, same image: every step came from the layer cache, so the archive was not rewritten.
    expect(readFileSync(`${tinyhost.archive}.id`, "utf8").split(" ")[0]).toBe(tinyhost.id);
    expect(statSync(tinyhost.archive).mtimeMs).toBe(before);
  }, 600_000);
});
