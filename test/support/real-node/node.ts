/**
 * A real single-node data plane beside a running control plane: containerd (Debian's, with its CRI
 * plugin), kubelet, kube-proxy (iptables), kube-controller-manager, kube-scheduler, CoreDNS and
 * Traefik watching Ingresses — the binaries built from the Go module proxy by scripts/build-node.sh.
 *
 * Layout (decisions in README.md, "A real node"): the node runs in a network and a mount namespace
 * of its own, held by one `sleep` process (the "holder"), so its bridge, routes, kube-proxy's
 * iptables rules, containerd's snapshots and the kubelet's volumes cannot touch the machine's and
 * vanish with it. A numbered slot (a flock on /run/tinyhost-node/slot-N.lock) gives each running node
 * its own addresses and cgroups, so two suites on one machine do not collide:
 *
 * - 10.213.N.1 (host) ↔ 10.213.N.2 (node, eth0): a veth pair; the host routes 10.214.N.0/24 (pods)
 *   to the node, so a test reaches pod IPs directly and Traefik (host side) routes to them;
 * - 10.214.N.0/24: the pods' CNI bridge with host-local IPAM;
 * - the apiserver listens on 127.0.0.1 only: a socat on 10.213.N.1 forwards the node's (and the pods',
 *   through the `kubernetes` Service) connections to it; node clients verify its cert as 127.0.0.1;
 * - CoreDNS (host side, on 10.213.N.1:53) answers the `kube-dns` Service (10.0.0.10);
 * - every process joins the pids cgroup /tinyhost-node-N-daemons and the kubelet puts pods under
 *   /tinyhost-node-N, so teardown.sh finds all of them by cgroup, also after a killed run.
 */
import type { Subprocess } from "bun";
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import YAML from "yaml";
import type { ControlPlaneInfo } from "../control-plane.ts";
import { ensureDebianBinary, ensureDebianPackage } from "../debian-package.ts";
import { goTool } from "../go-tools.ts";
import { freePort, startProcess, tail, waitUntil, type ManagedProcess } from "../process.ts";
import { writeScratchImage } from "./scratch-image.ts";

const ROOT = resolve(import.meta.dir, "../../..");
const HERE = import.meta.dir;
const RUN = "/run/tinyhost-node";
const DATA = "/var/lib/tinyhost-node";
/** Slots tried in order; each is one /24 in 10.213/16 and one in 10.214/16. */
const MAX_SLOTS = 32;
/** The control plane's service range (test/support/control-plane.ts) and the addresses in it. */
const KUBERNETES_SERVICE_IP = "10.0.0.1";
/** ClusterIP of the `kube-dns` Service (the kubelet's clusterDNS). */
export const CLUSTER_DNS_IP = "10.0.0.10";
/** Reference of the pod sandbox image (test/support/real-node/pause.c). */
export const PAUSE_IMAGE = "tinyhost-pause:3.10";
/** Reference of the tests' pod server image (test/go/podserver). */
export const PODSERVER_IMAGE = "tinyhost-podserver:test";

/** When one part of the node answered, in ms from the start of {@link startRealNode}. */
export interface NodePart {
  name: string;
  readyMs: number;
}

/** Result of a command run in the node's namespaces. */
export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A running real node. */
export interface RealNode {
  /** Slot number (addresses 10.213.N.0/24 and 10.214.N.0/24). */
  readonly slot: number;
  /** The Node object's name. */
  readonly nodeName: string;
  /** The node's InternalIP. */
  readonly nodeIp: string;
  /** The host's end of the veth pair: pods reach a server of the test on this address. */
  readonly hostIp: string;
  /** Pod network of the node (CIDR). */
  readonly podCidr: string;
  /** Traefik's HTTP entry point, `http://127.0.0.1:<port>`: routes by the Ingresses' Host rules. */
  readonly ingressUrl: string;
  /** containerd's socket (images are imported into its `k8s.io` namespace). */
  readonly containerdAddress: string;
  /** Parts in the order they answered. */
  readonly parts: readonly NodePart[];
  /** Directory of the parts' logs. */
  readonly logDir: string;
  /** Runs `argv` inside the node's network and mount namespaces (e.g. curl a ClusterIP). */
  exec(argv: readonly string[], timeoutMs?: number): Promise<ExecResult>;
  /** Imports a docker-archive into containerd's `k8s.io` namespace. @throws Error with ctr's stderr. */
  importImage(archive: string): Promise<void>;
  /**
   * Restarts the kubelet as an operator's `systemctl restart kubelet` does: SIGTERM (the pods keep
   * running: the kubelet does not stop containers on exit), the same command line again, and waits
   * until the Node's Ready condition has a heartbeat from the new kubelet.
   * @returns ms from the SIGTERM to the new kubelet's Ready heartbeat.
   * @throws Error with the kubelet log's tail when it does not come back within 120 s.
   */
  restartKubelet(): Promise<number>;
  /** Stops every part and removes everything the node left (teardown.sh). Safe to call twice. */
  stop(): Promise<void>;
}

/** Options of {@link startRealNode}. */
export interface RealNodeOptions {
  /** Process whose death kills the node's processes (default: this process). */
  ownerPid?: number;
  /** Called once per part when it answers (cluster:up prints these). */
  onPart?: (part: NodePart) => void;
}

/**
 * Builds (or finds in the cache) kubelet, kube-proxy, kube-controller-manager, kube-scheduler,
 * CoreDNS and Traefik with scripts/build-node.sh.
 * @returns the directory holding them.
 * @throws Error when the build fails (the script prints its one-line reason on stderr).
 */
export async function ensureNodeBinaries(): Promise<string> {
  const proc = Bun.spawn(["nice", "-n", "10", "bash", join(ROOT, "scripts/build-node.sh")], { stdout: "pipe", stderr: "inherit" });
  const out = await new Response(proc.stdout).text();
  const code = await proc.exited;
  if (code !== 0) throw new Error(`the node binaries build failed (exit ${code}); see the line above`);
  return out.trim().split("\n").pop() ?? "";
}

/** Installs the Debian packages the node runs on, when missing. */
function ensureHostTools() {
  const tools = {
    containerd: ensureDebianBinary("containerd"),
    ctr: ensureDebianBinary("ctr", "containerd"),
    runc: ensureDebianBinary("runc"),
    iptables: ensureDebianBinary("iptables"),
    conntrack: ensureDebianBinary("conntrack"),
    socat: ensureDebianBinary("socat"),
    curl: ensureDebianBinary("curl"),
    gcc: ensureDebianBinary("gcc"),
  };
  // The CNI plugins are files, not a binary on PATH.
  ensureDebianPackage("containernetworking-plugins", () => (existsSync("/usr/lib/cni/bridge") ? "/usr/lib/cni/bridge" : null), "the CNI bridge plugin");
  return tools;
}

function sh(cmd: string[], what: string): string {
  const r = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${what}: ${cmd.join(" ")} exited ${r.exitCode}: ${r.stderr.toString().trim()}`);
  return r.stdout.toString();
}

/** A claimed slot: the node's namespaces (held by `holder`) and the supervisor owning the slot's lock. */
interface Slot {
  slot: number;
  holder: number;
  supervisor: Subprocess;
}

/**
 * Claims the first free slot. Its supervisor (a bash process, not a child of any test runner's
 * cleanup) takes the slot's lock, removes what a killed run left in the slot (teardown.sh), makes
 * the slot's veth pair, starts the holder of the node's namespaces, then waits: when its owner dies (a test runner exits
 * without hooks, or is killed) or it gets SIGTERM (stop), it tears the slot down and lets go of
 * the lock. The holder does not inherit the lock, so the lock lives exactly as long as the supervisor.
 */
async function claimSlot(ownerPid: number): Promise<Slot> {
  mkdirSync(RUN, { recursive: true });
  const ownNet = readlinkSync("/proc/self/ns/net");
  for (let slot = 1; slot <= MAX_SLOTS; slot++) {
    const pidFile = join(RUN, `holder-${slot}.pid`);
    const teardown = `"${HERE}/teardown.sh" ${slot}`;
    const script = [
      `exec 9>"${RUN}/slot-${slot}.lock"`,
      "flock -n 9 || exit 75",
      `rm -f "${pidFile}"`,
      teardown,
      // The veth pair is made under the lock: when a run still uses this slot without it (its
      // supervisor killed mid-start) the pair exists again, and the next slot is taken instead.
      `ip link add th-h${slot} type veth peer name th-n${slot} || exit 75`,
      `trap '${teardown}; exit 0' TERM INT`,
      `"${HERE}/launch.sh" ${slot} - unshare --net --mount --propagation private sleep infinity 9>&- &`,
      // With the supervisor's own pid: a claimant that lost the lock must not take the holder's pid file for its own.
      `echo "$$ $!" > "${pidFile}"`,
      `while kill -0 ${ownerPid} 2>/dev/null; do sleep 0.5; done`,
      teardown,
    ].join("\n");
    const logFd = openSync(join(RUN, `supervisor-${slot}.log`), "w");
    const supervisor = Bun.spawn(["bash", "-c", script], { stdin: "ignore", stdout: logFd, stderr: logFd });
    closeSync(logFd);
    supervisor.unref();
    let holder = 0;
    await waitUntil(
      `slot ${slot}'s namespaces`,
      async () => {
        if (supervisor.exitCode !== null) return true;
        if (!existsSync(pidFile)) return false;
        const [writer, pid] = readFileSync(pidFile, "utf8").trim().split(" ").map(Number);
        if (writer !== supervisor.pid) return false; // the slot's current holder, not ours (ours exits 75)
        holder = pid ?? 0;
        try {
          return readlinkSync(`/proc/${holder}/ns/net`) !== ownNet;
        } catch {
          return false;
        }
      },
      60_000,
      50,
    );
    if (supervisor.exitCode === 75) continue;
    if (supervisor.exitCode !== null)
      throw new Error(`the supervisor of slot ${slot} exited ${supervisor.exitCode}: ${readFileSync(join(RUN, `supervisor-${slot}.log`), "utf8").trim()}`);
    return { slot, holder, supervisor };
  }
  throw new Error(`every real-node slot (1–${MAX_SLOTS}) is in use: see ${RUN}/slot-*.lock`);
}

function kubeconfigYaml(server: string, caPem: string, user: Record<string, string>, serverName?: string): string {
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  return YAML.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: "tinyhost-test",
        cluster: { server, "certificate-authority-data": b64(caPem), ...(serverName ? { "tls-server-name": serverName } : {}) },
      },
    ],
    users: [{ name: "admin", user }],
    contexts: [{ name: "tinyhost-test", context: { cluster: "tinyhost-test", user: "admin" } }],
    "current-context": "tinyhost-test",
  });
}

/** Builds the pause binary (gcc, static) and writes the pause and pod server images as archives. */
async function writeImages(dir: string): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const pause = join(dir, "pause");
  sh(["gcc", "-static", "-O2", "-o", pause, join(HERE, "pause.c")], "building pause");
  const podserver = await goTool("podserver");
  const pauseTar = join(dir, "pause.tar");
  const serverTar = join(dir, "podserver.tar");
  await writeScratchImage({ ref: PAUSE_IMAGE, files: { "/pause": pause }, entrypoint: ["/pause"], user: "65535" }, pauseTar);
  await writeScratchImage({ ref: PODSERVER_IMAGE, files: { "/podserver": podserver }, entrypoint: ["/podserver"], user: "65532" }, serverTar);
  return [pauseTar, serverTar];
}

/**
 * Starts the node's parts beside the control plane `cp` and returns when the Node is Ready, the
 * controllers and the scheduler answer, CoreDNS has synced and Traefik answers.
 * @throws Error naming the part that did not come up, with its log's tail (everything started is
 *   torn down first).
 */
export async function startRealNode(cp: ControlPlaneInfo, options: RealNodeOptions = {}): Promise<RealNode> {
  const bins = await ensureNodeBinaries();
  const tools = ensureHostTools();
  const t0 = performance.now();
  const parts: NodePart[] = [];
  const ready = (name: string) => {
    const part = { name, readyMs: Math.round(performance.now() - t0) };
    parts.push(part);
    options.onPart?.(part);
  };
  Bun.spawnSync([join(HERE, "teardown.sh"), "--stale"], { stdout: "ignore", stderr: "ignore" });
  const { slot, holder, supervisor } = await claimSlot(options.ownerPid ?? process.pid);
  const procs: ManagedProcess[] = [];
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    // The supervisor tears the slot down (every process of it, by cgroup) and frees the lock.
    supervisor.kill("SIGTERM");
    await Promise.race([supervisor.exited, Bun.sleep(60_000)]);
    await Promise.allSettled(procs.map((p) => p.kill()));
  };

  const run = join(RUN, String(slot));
  const data = join(DATA, String(slot));
  const logDir = join(data, "logs");
  for (const d of [run, logDir, join(data, "cni", "net.d")]) mkdirSync(d, { recursive: true });
  const hostIp = `10.213.${slot}.1`;
  const nodeIp = `10.213.${slot}.2`;
  const podCidr = `10.214.${slot}.0/24`;
  const nodeName = `tinyhost-node-${slot}`;
  const address = join(run, "containerd.sock");
  const apiPort = Number(new URL(cp.server).port);
  const pki = join(cp.dir, "pki");
  const inNode = (argv: readonly string[]) => ["nsenter", "-t", String(holder), "-n", "-m", "--", ...argv];
  const start = (name: string, argv: string[], inNamespaces: boolean) => {
    const p = startProcess({
      name,
      logFile: join(logDir, `${name}.log`),
      ownerPid: options.ownerPid,
      cmd: [join(HERE, "launch.sh"), String(slot), inNamespaces ? String(holder) : "-", ...argv],
    });
    procs.push(p);
    return p;
  };
  const alive = async (p: ManagedProcess) => {
    if (await Promise.race([p.exited.then(() => true), Bun.sleep(0).then(() => false)])) {
      throw new Error(`${p.name} exited: ${await tail(join(logDir, `${p.name}.log`), 15)}`);
    }
  };
  const exec = async (argv: readonly string[], timeoutMs = 30_000): Promise<ExecResult> => {
    const p = Bun.spawn(inNode(argv), { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
    const timer = setTimeout(() => p.kill("SIGKILL"), timeoutMs);
    try {
      const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
      return { code, stdout, stderr };
    } finally {
      clearTimeout(timer);
    }
  };

  try {
    // The veth pair (made by the slot's supervisor), the node's addresses and the host's route to the pods.
    sh(["ip", "link", "set", `th-n${slot}`, "netns", String(holder)], "moving the veth into the node");
    sh(["ip", "addr", "add", `${hostIp}/24`, "dev", `th-h${slot}`], "addressing the host end");
    sh(["ip", "link", "set", `th-h${slot}`, "up"], "raising the host end");
    const nodeNet = [
      "ip link set lo up",
      `ip link set th-n${slot} name eth0`,
      `ip addr add ${nodeIp}/24 dev eth0`,
      "ip link set eth0 up",
      `ip route add default via ${hostIp}`,
      "echo 1 > /proc/sys/net/ipv4/ip_forward",
      "if [ -w /proc/sys/net/bridge/bridge-nf-call-iptables ]; then echo 1 > /proc/sys/net/bridge/bridge-nf-call-iptables; fi",
    ].join(" && ");
    sh(inNode(["sh", "-c", nodeNet]), "configuring the node's network");
    sh(["ip", "route", "add", podCidr, "via", nodeIp], "routing the pod network");

    // Configuration files.
    const caPem = cp.caPem;
    const certUser = {
      "client-certificate-data": Buffer.from(cp.clientCertPem).toString("base64"),
      "client-key-data": Buffer.from(cp.clientKeyPem).toString("base64"),
    };
    const nodeKubeconfig = join(data, "node.kubeconfig");
    writeFileSync(nodeKubeconfig, kubeconfigYaml(`https://${hostIp}:${apiPort}`, caPem, certUser, "127.0.0.1"));
    writeFileSync(
      join(data, "containerd.toml"),
      [
        "version = 2",
        `root = "${data}/containerd"`,
        `state = "${run}/containerd"`,
        "[grpc]",
        `  address = "${address}"`,
        "[ttrpc]",
        `  address = "${address}.ttrpc"`,
        "[debug]",
        `  address = "${run}/debug.sock"`,
        '[plugins."io.containerd.internal.v1.opt"]',
        `  path = "${data}/opt"`,
        '[plugins."io.containerd.grpc.v1.cri"]',
        `  sandbox_image = "docker.io/library/${PAUSE_IMAGE}"`,
        // Without CAP_SYS_RESOURCE runc cannot lower a process's oom_score_adj below its parent's.
        "  restrict_oom_score_adj = true",
        // Pod netns files under the slot's state dir (teardown removes it), not in /run/netns.
        "  netns_mounts_under_state_dir = true",
        '[plugins."io.containerd.grpc.v1.cri".cni]',
        '  bin_dir = "/usr/lib/cni"',
        `  conf_dir = "${data}/cni/net.d"`,
        '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]',
        '  runtime_type = "io.containerd.runc.v2"',
        '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]',
        `  BinaryName = "${tools.runc}"`,
        "  SystemdCgroup = false",
        "",
      ].join("\n"),
    );
    writeFileSync(
      join(data, "cni", "net.d", "10-tinyhost.conflist"),
      JSON.stringify({
        cniVersion: "1.0.0",
        name: `tinyhost-${slot}`,
        plugins: [
          {
            type: "bridge",
            bridge: "cni0",
            isGateway: true,
            ipMasq: false,
            hairpinMode: true,
            ipam: { type: "host-local", ranges: [[{ subnet: podCidr }]], routes: [{ dst: "0.0.0.0/0" }], dataDir: join(data, "cni", "ipam") },
          },
        ],
      }),
    );
    writeFileSync(join(data, "resolv.conf"), `nameserver ${hostIp}\n`);
    writeFileSync(
      join(data, "kubelet.yaml"),
      YAML.stringify({
        apiVersion: "kubelet.config.k8s.io/v1beta1",
        kind: "KubeletConfiguration",
        failCgroupV1: false,
        cgroupDriver: "cgroupfs",
        cgroupRoot: `/tinyhost-node-${slot}`,
        containerRuntimeEndpoint: `unix://${address}`,
        address: nodeIp,
        readOnlyPort: 0,
        healthzBindAddress: "127.0.0.1",
        healthzPort: 10248,
        authentication: { anonymous: { enabled: true }, webhook: { enabled: false } },
        authorization: { mode: "AlwaysAllow" },
        clusterDNS: [CLUSTER_DNS_IP],
        clusterDomain: "cluster.local",
        resolvConf: join(data, "resolv.conf"),
        podLogsDir: join(data, "pod-logs"),
        volumePluginDir: join(data, "volume-plugins"),
        failSwapOn: false,
        serializeImagePulls: false,
        imageGCHighThresholdPercent: 100,
        imageGCLowThresholdPercent: 99,
        evictionHard: { "memory.available": "50Mi", "nodefs.available": "1%", "imagefs.available": "1%", "nodefs.inodesFree": "1%" },
        syncFrequency: "10s",
        nodeStatusUpdateFrequency: "5s",
      }),
    );
    writeFileSync(
      join(data, "kube-proxy.yaml"),
      YAML.stringify({
        apiVersion: "kubeproxy.config.k8s.io/v1alpha1",
        kind: "KubeProxyConfiguration",
        clientConnection: { kubeconfig: nodeKubeconfig },
        hostnameOverride: nodeName,
        healthzBindAddress: "127.0.0.1:10256",
        metricsBindAddress: "127.0.0.1:10249",
        clusterCIDR: podCidr,
        mode: "iptables",
        iptables: { minSyncPeriod: "0s", syncPeriod: "10s", localhostNodePorts: false },
        // The node's netns may not set the conntrack table's sysctls: leave them as they are.
        conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: "0s", tcpCloseWaitTimeout: "0s" },
      }),
    );

    // containerd first: the images must be in before the kubelet asks for a sandbox.
    const images = writeImages(join(data, "images"));
    images.catch(() => undefined); // awaited below; a failure there is the one reported
    const containerd = start("containerd", [tools.containerd, "--config", join(data, "containerd.toml")], true);
    // An import of a 200 MB image on a busy machine takes minutes.
    const ctr = (args: string[], timeoutMs = 30_000) => exec([tools.ctr, "--address", address, "--namespace", "k8s.io", ...args], timeoutMs);
    await waitUntil(
      "containerd to answer",
      async () => {
        await alive(containerd);
        return (await ctr(["version"])).code === 0;
      },
      60_000,
      200,
    );
    ready("containerd");
    const importImage = async (archive: string) => {
      const r = await ctr(["images", "import", archive], 15 * 60_000);
      if (r.code !== 0) throw new Error(`ctr images import ${archive} exited ${r.code}: ${r.stderr.trim()}`);
    };
    for (const archive of await images) await importImage(archive);
    ready("images");

    // The apiserver, reachable from the node.
    const socat = start("socat", [tools.socat, `TCP-LISTEN:${apiPort},bind=${hostIp},fork,reuseaddr`, `TCP:127.0.0.1:${apiPort}`], false);
    const kcmPort = freePort();
    const schedPort = freePort();
    const dnsReadyPort = freePort();
    const webPort = freePort();
    const pingPort = freePort();
    const kcm = start(
      "kube-controller-manager",
      [
        join(bins, "kube-controller-manager"),
        `--kubeconfig=${cp.certKubeconfig}`,
        "--leader-elect=false",
        "--bind-address=127.0.0.1",
        `--secure-port=${kcmPort}`,
        `--cert-dir=${join(data, "kcm-certs")}`,
        `--service-account-private-key-file=${join(pki, "sa.key")}`,
        `--root-ca-file=${join(pki, "ca.crt")}`,
        `--cluster-signing-cert-file=${join(pki, "ca.crt")}`,
        `--cluster-signing-key-file=${join(pki, "ca.key")}`,
        "--use-service-account-credentials=false",
        "--v=0",
      ],
      false,
    );
    const scheduler = start(
      "kube-scheduler",
      [
        join(bins, "kube-scheduler"),
        `--kubeconfig=${cp.certKubeconfig}`,
        "--leader-elect=false",
        "--bind-address=127.0.0.1",
        `--secure-port=${schedPort}`,
        `--cert-dir=${join(data, "scheduler-certs")}`,
        "--v=0",
      ],
      false,
    );
    // The kubelet wants its cgroup root in every hierarchy before it starts; a new cpuset cgroup
    // holds no CPUs or memory nodes until given its parent's.
    for (const h of readdirSync("/sys/fs/cgroup")) {
      const parent = join("/sys/fs/cgroup", h);
      if (h === "unified" || !existsSync(join(parent, "cgroup.procs"))) continue;
      const dir = join(parent, `tinyhost-node-${slot}`);
      mkdirSync(dir, { recursive: true });
      for (const f of ["cpuset.cpus", "cpuset.mems"]) {
        if (existsSync(join(dir, f)) && readFileSync(join(dir, f), "utf8").trim() === "") writeFileSync(join(dir, f), readFileSync(join(parent, f)));
      }
    }
    const kubeletArgv = [
      join(bins, "kubelet"),
      `--config=${join(data, "kubelet.yaml")}`,
      `--kubeconfig=${nodeKubeconfig}`,
      `--root-dir=${join(data, "kubelet")}`,
      `--cert-dir=${join(data, "kubelet-pki")}`,
      `--hostname-override=${nodeName}`,
      `--node-ip=${nodeIp}`,
      "--v=1",
    ];
    let kubelet = start("kubelet", kubeletArgv, true);
    const proxy = start("kube-proxy", [join(bins, "kube-proxy"), `--config=${join(data, "kube-proxy.yaml")}`, "--v=0"], true);
    writeFileSync(
      join(data, "Corefile"),
      [
        ".:53 {",
        `  bind ${hostIp}`,
        "  errors",
        `  ready 127.0.0.1:${dnsReadyPort}`,
        "  kubernetes cluster.local in-addr.arpa ip6.arpa {",
        `    kubeconfig ${cp.certKubeconfig} tinyhost-test`,
        "    pods insecure",
        "    fallthrough in-addr.arpa ip6.arpa",
        "  }",
        "  cache 5",
        "}",
        "",
      ].join("\n"),
    );
    const coredns = start("coredns", [join(bins, "coredns"), "-conf", join(data, "Corefile")], false);
    const traefik = start(
      "traefik",
      [
        join(bins, "traefik"),
        "--global.checkNewVersion=false",
        "--global.sendAnonymousUsage=false",
        `--entryPoints.web.address=127.0.0.1:${webPort}`,
        `--entryPoints.traefik.address=127.0.0.1:${pingPort}`,
        "--ping=true",
        "--ping.entryPoint=traefik",
        "--log.level=WARN",
        "--providers.kubernetesIngress=true",
        `--providers.kubernetesIngress.endpoint=${cp.server}`,
        `--providers.kubernetesIngress.token=${cp.token}`,
        `--providers.kubernetesIngress.certAuthFilePath=${join(pki, "ca.crt")}`,
      ],
      false,
    );

    const request = (method: string, path: string, body?: unknown) =>
      fetch(cp.server + path, {
        method,
        headers: { authorization: `Bearer ${cp.token}`, "content-type": "application/json", accept: "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
        tls: { ca: caPem },
      });
    const apply = async (path: string, obj: { metadata: { name: string } }) => {
      const res = await request("POST", path, obj);
      if (!res.ok && res.status !== 409) throw new Error(`creating ${path}/${obj.metadata.name}: HTTP ${res.status} ${await res.text()}`);
    };
    // The in-cluster addresses: the apiserver behind `kubernetes` and CoreDNS behind `kube-dns`
    // (endpoints written here: the apiserver runs with --endpoint-reconciler-type=none and
    // CoreDNS is not a pod).
    const managedBy = { "endpointslice.kubernetes.io/managed-by": "tinyhost-test-bed" };
    await apply("/apis/discovery.k8s.io/v1/namespaces/default/endpointslices", {
      metadata: { name: "kubernetes-node", labels: { "kubernetes.io/service-name": "kubernetes", ...managedBy } },
      addressType: "IPv4",
      endpoints: [{ addresses: [hostIp], conditions: { ready: true } }],
      ports: [{ name: "https", port: apiPort, protocol: "TCP" }],
    } as never);
    await apply("/api/v1/namespaces/kube-system/services", {
      metadata: { name: "kube-dns", labels: { "k8s-app": "kube-dns" } },
      spec: {
        clusterIP: CLUSTER_DNS_IP,
        ports: [
          { name: "dns", port: 53, protocol: "UDP" },
          { name: "dns-tcp", port: 53, protocol: "TCP" },
        ],
      },
    } as never);
    await apply("/apis/discovery.k8s.io/v1/namespaces/kube-system/endpointslices", {
      metadata: { name: "kube-dns-node", labels: { "kubernetes.io/service-name": "kube-dns", ...managedBy } },
      addressType: "IPv4",
      endpoints: [{ addresses: [hostIp], conditions: { ready: true } }],
      ports: [
        { name: "dns", port: 53, protocol: "UDP" },
        { name: "dns-tcp", port: 53, protocol: "TCP" },
      ],
    } as never);
    await apply("/apis/networking.k8s.io/v1/ingressclasses", {
      metadata: { name: "traefik", annotations: { "ingressclass.kubernetes.io/is-default-class": "true" } },
      spec: { controller: "traefik.io/ingress-controller" },
    } as never);

    const healthz = (port: number) => async () => (await fetch(`https://127.0.0.1:${port}/healthz`, { tls: { rejectUnauthorized: false } })).ok;
    await Promise.all([
      waitUntil(
        "kube-controller-manager /healthz",
        async () => {
          await alive(kcm);
          return healthz(kcmPort)();
        },
        90_000,
        200,
      ).then(() => ready("kube-controller-manager")),
      waitUntil(
        "kube-scheduler /healthz",
        async () => {
          await alive(scheduler);
          return healthz(schedPort)();
        },
        90_000,
        200,
      ).then(() => ready("kube-scheduler")),
      waitUntil(
        "CoreDNS /ready",
        async () => {
          await alive(coredns);
          await alive(socat);
          return (await fetch(`http://127.0.0.1:${dnsReadyPort}/ready`)).ok;
        },
        90_000,
        200,
      ).then(() => ready("coredns")),
      waitUntil(
        "Traefik /ping",
        async () => {
          await alive(traefik);
          return (await fetch(`http://127.0.0.1:${pingPort}/ping`)).ok;
        },
        90_000,
        200,
      ).then(() => ready("traefik")),
      waitUntil(
        "kube-proxy /healthz",
        async () => {
          await alive(proxy);
          return (await exec(["curl", "-sf", "-o", "/dev/null", "http://127.0.0.1:10256/healthz"], 5_000)).code === 0;
        },
        90_000,
        300,
      ).then(() => ready("kube-proxy")),
      waitUntil(
        `node ${nodeName} Ready`,
        async () => {
          await alive(kubelet);
          const res = await request("GET", `/api/v1/nodes/${nodeName}`);
          if (!res.ok) return false;
          const node = (await res.json()) as { status?: { conditions?: { type: string; status: string }[] } };
          return node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
        },
        120_000,
        200,
      ).then(() => ready("kubelet (node Ready)")),
    ]);
    /** The Ready condition's status and last heartbeat (ms since the epoch, 1 s resolution). */
    const readyHeartbeat = async (): Promise<{ ready: boolean; at: number }> => {
      const res = await request("GET", `/api/v1/nodes/${nodeName}`);
      if (!res.ok) return { ready: false, at: 0 };
      const node = (await res.json()) as { status?: { conditions?: { type: string; status: string; lastHeartbeatTime?: string }[] } };
      const c = node.status?.conditions?.find((x) => x.type === "Ready");
      return { ready: c?.status === "True", at: c?.lastHeartbeatTime ? Date.parse(c.lastHeartbeatTime) : 0 };
    };
    const restartKubelet = async (): Promise<number> => {
      const t0 = performance.now();
      const stoppedAt = Date.now();
      await kubelet.stop(30_000);
      kubelet = start("kubelet", kubeletArgv, true);
      await waitUntil(
        `node ${nodeName} Ready after the kubelet restart`,
        async () => {
          await alive(kubelet);
          const hb = await readyHeartbeat();
          // Heartbeat times have 1 s resolution: one at least a second after the stop is the new kubelet's.
          return hb.ready && hb.at >= stoppedAt + 1000;
        },
        120_000,
        250,
      );
      return Math.round(performance.now() - t0);
    };
    return {
      slot,
      nodeName,
      nodeIp,
      hostIp,
      podCidr,
      ingressUrl: `http://127.0.0.1:${webPort}`,
      containerdAddress: address,
      parts,
      logDir,
      exec,
      importImage,
      restartKubelet,
      stop,
    };
  } catch (err) {
    // The logs outlive the teardown for whoever reads the error.
    const kept = `/tmp/tinyhost-node-${slot}-failed-logs`;
    const logs = existsSync(logDir) && Bun.spawnSync(["cp", "-rT", logDir, kept]).exitCode === 0 ? ` (logs kept in ${kept})` : "";
    await stop();
    throw new Error(`the real node did not come up${logs}: ${(err as Error).message}`);
  }
}
