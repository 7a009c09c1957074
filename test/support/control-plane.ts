/**
 * A real kube-apiserver + etcd for integration tests and `npm run cluster:up`, started the way
 * controller-runtime's envtest does (docs/reference/test-control-plane.md §2): etcd on free
 * loopback ports with --unsafe-no-fsync, the apiserver with generated certificates, a token user
 * and a client-certificate user, readiness by authenticated /readyz (60 s limit), then the CRDs of
 * crds/ applied and waited on until Established.
 *
 * One control plane serves a whole test run: `run-integration.ts` starts it and passes its
 * connection facts in TINYHOST_CONTROL_PLANE (a JSON file); a test file run on its own starts a
 * private one. Tests isolate themselves by namespace ({@link ControlPlane.newNamespace}) because
 * namespaces never finish deleting without a controller manager (§3.3).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import YAML from "yaml";
import { FRONT_PROXY_CLIENT, generateFrontProxyPki, generatePki } from "./pki.ts";
import { freePort, startProcess, tail, waitUntil, type ManagedProcess } from "./process.ts";
import { createKubeClient, type KubeClient } from "../../src/k8s/client/index.ts";

const ROOT = resolve(import.meta.dir, "../..");

/** Connection facts of a running control plane (JSON-serialisable). */
export interface ControlPlaneInfo {
  /** `https://127.0.0.1:<port>` */
  server: string;
  /** PEM of the CA that signed the serving cert and the client cert. */
  caPem: string;
  /** Bearer token of user `admin` (system:masters). */
  token: string;
  /** PEM client certificate of user `admin` (O=system:masters). */
  clientCertPem: string;
  /** PEM key of the client certificate. */
  clientKeyPem: string;
  /** Kubeconfig file authenticating with the token. */
  tokenKubeconfig: string;
  /** Kubeconfig file authenticating with the client certificate. */
  certKubeconfig: string;
  /** etcd client URL. */
  etcdUrl: string;
  /** Run directory (certs, logs, data). */
  dir: string;
}

/** A control plane as tests use it. */
export interface ControlPlane extends ControlPlaneInfo {
  /**
   * Creates a namespace named `<prefix>-<random>` (valid DNS label) and returns its name.
   * @throws Error with the apiserver's answer when creation fails.
   */
  newNamespace(prefix: string): Promise<string>;
  /** Raw authenticated request (token user); returns the fetch Response. */
  request(method: string, path: string, body?: unknown, contentType?: string): Promise<Response>;
}

/** A control plane owned by this process, with lifecycle controls. */
export interface OwnedControlPlane extends ControlPlane {
  /** Stops the apiserver only (etcd keeps the data): fault tests restart it. */
  stopApiserver(): Promise<void>;
  /** Starts the apiserver again on the same port and waits for /readyz. */
  startApiserver(): Promise<void>;
  /** Stops both processes and deletes the run directory. */
  stop(): Promise<void>;
}

/**
 * Builds (or finds in the cache) kube-apiserver and etcd with scripts/build-control-plane.sh.
 * @returns the directory holding both binaries.
 * @throws Error with the script's one-line explanation when Go or the module proxy is unavailable.
 */
export async function ensureControlPlaneBinaries(): Promise<string> {
  const proc = Bun.spawn(["bash", join(ROOT, "scripts/build-control-plane.sh")], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const out = await new Response(proc.stdout).text();
  const code = await proc.exited;
  if (code !== 0) throw new Error(`the control-plane build failed (exit ${code}); see the line above`);
  const dir = out.trim().split("\n").pop() ?? "";
  if (!existsSync(join(dir, "kube-apiserver")) || !existsSync(join(dir, "etcd"))) {
    throw new Error(`the control-plane build printed "${dir}", which does not hold kube-apiserver and etcd`);
  }
  return dir;
}

function kubeconfig(info: { server: string; caPem: string }, user: Record<string, string>): string {
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  return YAML.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "tinyhost-test", cluster: { server: info.server, "certificate-authority-data": b64(info.caPem) } }],
    users: [{ name: "admin", user }],
    contexts: [{ name: "tinyhost-test", context: { cluster: "tinyhost-test", user: "admin", namespace: "default" } }],
    "current-context": "tinyhost-test",
  });
}

function withRequests(info: ControlPlaneInfo): ControlPlane {
  const request = (method: string, path: string, body?: unknown, contentType = "application/json") =>
    fetch(info.server + path, {
      method,
      headers: {
        authorization: `Bearer ${info.token}`,
        accept: "application/json",
        ...(body === undefined ? {} : { "content-type": contentType }),
      },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      tls: { ca: info.caPem },
    });
  return {
    ...info,
    request,
    async newNamespace(prefix: string) {
      const suffix = Math.random().toString(36).slice(2, 8);
      const base =
        prefix
          .toLowerCase()
          .replace(/[^a-z0-9-]+/g, "-")
          .replace(/^-+|-+$/g, "")
          .slice(0, 50) || "t";
      const name = `${base}-${suffix}`;
      const res = await request("POST", "/api/v1/namespaces", { metadata: { name } });
      if (!res.ok) throw new Error(`creating namespace ${name}: HTTP ${res.status} ${await res.text()}`);
      return name;
    },
  };
}

/**
 * Applies every CRD manifest in `dir` (create, or update when it exists) and waits until each is
 * Established (10 s each).
 * @throws Error naming the CRD when it is rejected or does not become Established.
 */
export async function applyCrds(cp: ControlPlane, dir = join(ROOT, "crds")): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const names: string[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".yaml") || f.endsWith(".yml"))
    .sort()) {
    for (const doc of YAML.parseAllDocuments(readFileSync(join(dir, file), "utf8"))) {
      const crd = doc.toJSON() as { kind?: string; metadata?: { name?: string } } | null;
      if (!crd || crd.kind !== "CustomResourceDefinition" || !crd.metadata?.name) continue;
      const name = crd.metadata.name;
      const base = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
      let res = await cp.request("POST", base, crd);
      if (res.status === 409) {
        const current = (await (await cp.request("GET", `${base}/${name}`)).json()) as { metadata: { resourceVersion: string } };
        res = await cp.request("PUT", `${base}/${name}`, {
          ...crd,
          metadata: { ...crd.metadata, resourceVersion: current.metadata.resourceVersion },
        });
      }
      if (!res.ok) throw new Error(`applying CRD ${name} from ${file}: HTTP ${res.status} ${await res.text()}`);
      names.push(name);
    }
  }
  for (const name of names) {
    await waitUntil(
      `CRD ${name} to become Established`,
      async () => {
        const res = await cp.request("GET", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
        const crd = (await res.json()) as { status?: { conditions?: { type: string; status: string; message?: string }[] } };
        const conds = crd.status?.conditions ?? [];
        const rejected = conds.find((c) => c.type === "NamesAccepted" && c.status === "False");
        if (rejected) throw new Error(`names not accepted: ${rejected.message}`);
        return conds.some((c) => c.type === "Established" && c.status === "True");
      },
      10_000,
    );
  }
  return names;
}

/** Removes run dirs left by a killed run (their owner process is gone; its watchdogs killed the servers). */
function sweepStaleRunDirs(parent: string): void {
  for (const name of readdirSync(parent)) {
    if (!name.startsWith("tinyhost-cp-")) continue;
    const dir = join(parent, name);
    let owner = 0;
    try {
      owner = Number(readFileSync(join(dir, "owner.pid"), "utf8"));
    } catch {
      continue;
    }
    let alive = true;
    try {
      process.kill(owner, 0);
    } catch {
      alive = false;
    }
    if (!alive) rmSync(dir, { recursive: true, force: true });
  }
}

/** Options of {@link startControlPlane}. */
export interface ControlPlaneOptions {
  /** Process whose death kills the servers (default: this process). */
  ownerPid?: number;
  /**
   * Run the ServiceAccount admission plugin (pods get their account's token mounted), as a cluster
   * with a kube-controller-manager needs (test/support/real-node/). Off by default: without the
   * controller manager no `default` ServiceAccount exists and every pod would be refused.
   */
  admitServiceAccounts?: boolean;
  /**
   * Configure the aggregation layer (Kubernetes docs "Configure the Aggregation Layer"): a
   * front-proxy CA and client cert, the `--requestheader-*` and `--proxy-client-*` flags, and
   * `--enable-aggregator-routing` (the apiserver dials an APIService's endpoints, not its ClusterIP —
   * it runs outside the node's network). Needed by an extension apiserver such as KEDA's metrics
   * adapter (docs/operations.md §14). Off by default.
   */
  aggregationLayer?: boolean;
}

/**
 * Starts etcd and kube-apiserver on free loopback ports, applies the CRDs, and returns when the
 * apiserver answers an authenticated /readyz.
 * @throws Error with the failing server's log tail.
 */
export async function startControlPlane(opts: ControlPlaneOptions = {}): Promise<OwnedControlPlane> {
  const bins = await ensureControlPlaneBinaries();
  const shm = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();
  sweepStaleRunDirs(shm);
  const dir = mkdtempSync(join(shm, "tinyhost-cp-"));
  writeFileSync(join(dir, "owner.pid"), String(opts.ownerPid ?? process.pid));
  const pkiDir = join(dir, "pki");
  mkdirSync(pkiDir);
  const pki = await generatePki(pkiDir);
  const frontProxy = opts.aggregationLayer ? await generateFrontProxyPki(pkiDir) : undefined;
  const etcdPort = freePort();
  const peerPort = freePort();
  const port = freePort();
  const etcdUrl = `http://127.0.0.1:${etcdPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const etcdLog = join(dir, "etcd.log");
  const apiLog = join(dir, "kube-apiserver.log");

  const etcd: ManagedProcess = startProcess({
    name: "etcd",
    logFile: etcdLog,
    ownerPid: opts.ownerPid,
    cmd: [
      join(bins, "etcd"),
      "--name",
      "t",
      "--data-dir",
      join(dir, "etcd"),
      "--unsafe-no-fsync",
      "--logger=zap",
      "--log-level=warn",
      "--listen-client-urls",
      etcdUrl,
      "--advertise-client-urls",
      etcdUrl,
      "--listen-peer-urls",
      peerUrl,
      "--initial-advertise-peer-urls",
      peerUrl,
      "--initial-cluster",
      `t=${peerUrl}`,
    ],
  });
  try {
    await waitUntil("etcd /health", async () => (await fetch(`${etcdUrl}/health`)).ok, 20_000);
  } catch (err) {
    await etcd.kill();
    throw new Error(`${(err as Error).message}\n${await tail(etcdLog)}`);
  }

  const server = `https://127.0.0.1:${port}`;
  const caPem = readFileSync(pki.caCert, "utf8");
  const apiArgs = [
    join(bins, "kube-apiserver"),
    `--etcd-servers=${etcdUrl}`,
    "--etcd-prefix=/registry",
    `--secure-port=${port}`,
    "--bind-address=127.0.0.1",
    "--advertise-address=127.0.0.1",
    "--endpoint-reconciler-type=none",
    `--tls-cert-file=${pki.serverCert}`,
    `--tls-private-key-file=${pki.serverKey}`,
    `--cert-dir=${join(dir, "certs")}`,
    `--client-ca-file=${pki.caCert}`,
    `--token-auth-file=${pki.tokenFile}`,
    "--authorization-mode=RBAC",
    `--service-account-issuer=${server}`,
    `--service-account-key-file=${pki.saPub}`,
    `--service-account-signing-key-file=${pki.saKey}`,
    "--service-cluster-ip-range=10.0.0.0/24",
    "--allow-privileged=true",
    // A real node's name resolves nowhere here: logs, exec and port-forward dial the kubelet by its InternalIP.
    "--kubelet-preferred-address-types=InternalIP,Hostname",
    `--disable-admission-plugins=${opts.admitServiceAccounts ? "" : "ServiceAccount,"}StorageObjectInUseProtection`,
    ...(frontProxy
      ? [
          `--requestheader-client-ca-file=${frontProxy.caCert}`,
          `--requestheader-allowed-names=${FRONT_PROXY_CLIENT}`,
          "--requestheader-username-headers=X-Remote-User",
          "--requestheader-group-headers=X-Remote-Group",
          "--requestheader-extra-headers-prefix=X-Remote-Extra-",
          `--proxy-client-cert-file=${frontProxy.clientCert}`,
          `--proxy-client-key-file=${frontProxy.clientKey}`,
          "--enable-aggregator-routing=true",
        ]
      : []),
    "--v=0",
  ];
  let api: ManagedProcess | null = null;
  const startApi = async () => {
    api = startProcess({ name: "kube-apiserver", logFile: apiLog, ownerPid: opts.ownerPid, cmd: apiArgs });
    const current = api;
    try {
      await waitUntil(
        "kube-apiserver /readyz",
        async () => {
          const gone = await Promise.race([current.exited.then(() => true), Bun.sleep(0).then(() => false)]);
          if (gone) throw new Error("kube-apiserver exited");
          const res = await fetch(`${server}/readyz`, {
            headers: { authorization: `Bearer ${pki.token}` },
            tls: { ca: caPem },
          });
          return res.ok;
        },
        60_000,
        200,
      );
    } catch (err) {
      await current.kill();
      throw new Error(`${(err as Error).message}\n${await tail(apiLog, 30)}`);
    }
  };
  try {
    await startApi();
  } catch (err) {
    await etcd.kill();
    throw err;
  }

  const info: ControlPlaneInfo = {
    server,
    caPem,
    token: pki.token,
    clientCertPem: readFileSync(pki.clientCert, "utf8"),
    clientKeyPem: readFileSync(pki.clientKey, "utf8"),
    tokenKubeconfig: join(dir, "token.kubeconfig"),
    certKubeconfig: join(dir, "cert.kubeconfig"),
    etcdUrl,
    dir,
  };
  writeFileSync(info.tokenKubeconfig, kubeconfig(info, { token: pki.token }));
  writeFileSync(
    info.certKubeconfig,
    kubeconfig(info, {
      "client-certificate-data": Buffer.from(info.clientCertPem).toString("base64"),
      "client-key-data": Buffer.from(info.clientKeyPem).toString("base64"),
    }),
  );
  const cp = withRequests(info);
  try {
    await applyCrds(cp);
  } catch (err) {
    await (api as ManagedProcess | null)?.kill();
    await etcd.kill();
    throw err;
  }
  return {
    ...cp,
    async stopApiserver() {
      await (api as ManagedProcess | null)?.stop(20_000);
    },
    async startApiserver() {
      await startApi();
    },
    async stop() {
      await (api as ManagedProcess | null)?.stop(20_000);
      await etcd.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Writes the connection facts to a JSON file other processes read with {@link getControlPlane}. */
export function writeControlPlaneInfo(cp: ControlPlaneInfo, file: string): void {
  const info: ControlPlaneInfo = {
    server: cp.server,
    caPem: cp.caPem,
    token: cp.token,
    clientCertPem: cp.clientCertPem,
    clientKeyPem: cp.clientKeyPem,
    tokenKubeconfig: cp.tokenKubeconfig,
    certKubeconfig: cp.certKubeconfig,
    etcdUrl: cp.etcdUrl,
    dir: cp.dir,
  };
  writeFileSync(file, JSON.stringify(info, null, 2));
}

let shared: Promise<ControlPlane> | null = null;

/**
 * The control plane for this test process: the run's shared one when TINYHOST_CONTROL_PLANE names
 * its info file, else a private one started on first use and stopped when the process exits.
 */
export function getControlPlane(): Promise<ControlPlane> {
  if (shared) return shared;
  const file = process.env.TINYHOST_CONTROL_PLANE;
  if (file && existsSync(file)) {
    shared = Promise.resolve(withRequests(JSON.parse(readFileSync(file, "utf8")) as ControlPlaneInfo));
  } else {
    shared = startControlPlane().then((cp) => {
      process.once("exit", () => {
        // Synchronous best effort; the watchdogs finish the job if this is skipped.
        Bun.spawnSync(["bash", "-c", `pkill -TERM -f '${cp.dir}' || true`]);
      });
      return cp;
    });
  }
  return shared;
}

/**
 * The shared control plane ({@link getControlPlane}) and a client holding its token: what a test
 * file's `beforeAll` sets up (give that hook minutes; a first start builds the binaries).
 */
export async function connectControlPlane(): Promise<{ cp: ControlPlane; kube: KubeClient }> {
  const cp = await getControlPlane();
  return { cp, kube: await createKubeClient({ kubeconfig: cp.tokenKubeconfig, env: {} }) };
}
