/**
 * A containerd of the test's own (Debian packages `containerd` and `runc`) for checking built
 * images: its root, state and sockets in one temp dir — never the machine's default
 * /run/containerd socket, which a real node may be using — and its CRI plugin off (no kubelet
 * talks to it). Images are imported and run with `ctr` in the kubelet's namespace (`k8s.io`), so
 * what is checked here is what a node's containerd holds.
 *
 * {@link PrivateContainerd.runImage} runs a container under the chart's securityContext as far as
 * `ctr run` can express it: the image's own USER (ctr 1.6 has no --user; the chart's runAsUser is
 * the same 65532), read-only root filesystem, every capability of containerd's default set dropped,
 * no new privileges (ctr's default), the runtime's default seccomp profile, and a tmpfs at /tmp in
 * place of the chart's emptyDir. No cgroup is created (`--cgroup ""`), so nothing is left behind.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureDebianBinary } from "./debian-package.ts";
import { startProcess, tail, waitUntil, type ManagedProcess } from "./process.ts";

/** containerd's default capability set (containerd oci/spec.go `defaultUnixCaps`), all dropped by {@link PrivateContainerd.runImage}. */
export const DEFAULT_CAPABILITIES: readonly string[] = [
  "CAP_CHOWN",
  "CAP_DAC_OVERRIDE",
  "CAP_FSETID",
  "CAP_FOWNER",
  "CAP_MKNOD",
  "CAP_NET_RAW",
  "CAP_SETGID",
  "CAP_SETUID",
  "CAP_SETFCAP",
  "CAP_SETPCAP",
  "CAP_NET_BIND_SERVICE",
  "CAP_SYS_CHROOT",
  "CAP_KILL",
  "CAP_AUDIT_WRITE",
];

/** What a container run printed and how it ended. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of {@link PrivateContainerd.runImage}. */
export interface RunImageOptions {
  /** Extra environment (`--env`). */
  env?: Record<string, string>;
  /** Leave the root filesystem writable (default false: read-only, as the chart sets it). */
  writableRoot?: boolean;
  /** Extra `ctr run --mount` specs, e.g. `type=bind,src=/x,dst=/y,options=rbind:ro`. */
  mounts?: string[];
  /** Share the host's network (`--net-host`) so the test reaches a server in the container. */
  netHost?: boolean;
  /** Container id (default a new one), e.g. to stop it with `ctr task kill` while it serves. */
  id?: string;
  /** Kill the container after this many ms (default 60,000). */
  timeoutMs?: number;
}

/** A running private containerd. */
export interface PrivateContainerd {
  /** Its gRPC socket. */
  readonly address: string;
  /** Namespace images are imported to and run in (`k8s.io`). */
  readonly namespace: string;
  /** Its log file. */
  readonly logFile: string;
  /** Runs `ctr --address … --namespace <namespace> <args>` (default {@link namespace}). @throws Error with ctr's stderr when it fails. */
  ctr(args: readonly string[], namespace?: string): Promise<string>;
  /** Runs `argv` (or the image's entrypoint when empty) in a new container of `ref`, removed afterwards. */
  runImage(ref: string, argv: readonly string[], options?: RunImageOptions): Promise<RunResult>;
  /** Stops containerd, unmounts what it left mounted, removes its dir. */
  stop(): Promise<void>;
}

let runs = 0;

/**
 * Starts a containerd in a new temp dir and waits until it answers (up to 30 s).
 * @throws Error naming the log's tail when it does not come up.
 */
export async function startContainerd(): Promise<PrivateContainerd> {
  const containerd = ensureDebianBinary("containerd");
  const ctrBinary = ensureDebianBinary("ctr", "containerd");
  ensureDebianBinary("runc");
  // Unix socket paths are limited to 108 bytes: a short dir under /tmp, not the suite's deep one.
  const dir = mkdtempSync("/tmp/th-ctd-");
  const address = join(dir, "containerd.sock");
  const config = join(dir, "config.toml");
  writeFileSync(
    config,
    [
      "version = 2",
      `root = "${dir}/root"`,
      `state = "${dir}/state"`,
      'disabled_plugins = ["io.containerd.grpc.v1.cri"]',
      "[grpc]",
      `  address = "${address}"`,
      "[ttrpc]",
      `  address = "${address}.ttrpc"`,
      "[debug]",
      `  address = "${dir}/debug.sock"`,
      "",
    ].join("\n"),
  );
  const logFile = join(dir, "containerd.log");
  const proc: ManagedProcess = startProcess({ name: "containerd", cmd: [containerd, "--config", config], logFile });
  const namespace = "k8s.io";
  const ctr = async (args: readonly string[], ns = namespace): Promise<string> => {
    const p = Bun.spawn([ctrBinary, "--address", address, "--namespace", ns, ...args], { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    if (code !== 0) throw new Error(`ctr ${args.slice(0, 2).join(" ")} exited ${code}: ${err.trim()}`);
    return out;
  };
  try {
    await waitUntil("containerd to answer", async () => (await ctr(["version"])).includes("Server"), 30_000, 200);
  } catch (e) {
    await proc.stop();
    throw new Error(`${(e as Error).message}\n${await tail(logFile)}`);
  }
  return {
    address,
    namespace,
    logFile,
    ctr,
    async runImage(ref, argv, options = {}) {
      const id = options.id ?? `tinyhost-test-${process.pid}-${++runs}`;
      const env = Object.entries(options.env ?? {}).flatMap(([k, v]) => ["--env", `${k}=${v}`]);
      const cmd = [
        ctrBinary,
        "--address",
        address,
        "--namespace",
        namespace,
        "run",
        "--rm",
        ...(options.writableRoot ? [] : ["--read-only"]),
        ...(options.netHost ? ["--net-host"] : []),
        "--seccomp",
        "--cgroup",
        "",
        ...DEFAULT_CAPABILITIES.flatMap((c) => ["--cap-drop", c]),
        "--mount",
        "type=tmpfs,src=tmpfs,dst=/tmp,options=nosuid:nodev",
        ...(options.mounts ?? []).flatMap((m) => ["--mount", m]),
        ...env,
        ref,
        id,
        ...argv,
      ];
      const p = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
      const timer = setTimeout(() => void ctr(["task", "kill", "--signal", "SIGKILL", id]).catch(() => undefined), options.timeoutMs ?? 60_000);
      try {
        const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
        return { code, stdout, stderr };
      } finally {
        clearTimeout(timer);
      }
    },
    async stop() {
      await proc.stop(10_000);
      unmountUnder(dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Lazily unmounts every mount under `dir`, deepest first (containerd's snapshots, a shim's rootfs). */
function unmountUnder(dir: string): void {
  if (!existsSync("/proc/self/mountinfo")) return;
  const points = readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((l) => l.split(" ")[4] ?? "")
    .filter((p) => p.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const point of points) Bun.spawnSync(["umount", "-l", point], { stdout: "ignore", stderr: "ignore" });
}
