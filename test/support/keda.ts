/**
 * KEDA's operator and metrics adapter (v2.21.0, built by scripts/build-keda.sh) run as processes
 * beside a test control plane started with `aggregationLayer: true` (test/support/control-plane.ts):
 * KEDA's CRDs from the module cache, mTLS certs of their own for the operator's metrics gRPC service
 * (ca.crt, tls.crt, tls.key — KEDA's cert rotation is off), the adapter registered as APIService
 * `v1beta1.external.metrics.k8s.io` through a selector-less Service whose Endpoints and EndpointSlice
 * name this host's address (the apiserver routes to endpoints; loopback is not allowed in them).
 * With `clusterDns` (the real node's CoreDNS) both resolve the cluster's names as KEDA's pod would,
 * so a trigger naming a headless Service (`<svc>.<ns>.svc:8222`, what `provision` writes) is read
 * from the host: the names resolve to pod IPs, which the host routes to (test/support/real-node/node.ts).
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { join, resolve } from "node:path";
import YAML from "yaml";
import type { ControlPlane } from "./control-plane.ts";
import { freePort, startProcess, tail, type ManagedProcess } from "./process.ts";
import { until } from "./until.ts";

const ROOT = resolve(import.meta.dir, "../..");
/** KEDA's version, as scripts/build-keda.sh builds it. */
export const KEDA_VERSION = "v2.21.0";
const CRDS = [
  "keda.sh_scaledobjects.yaml",
  "keda.sh_triggerauthentications.yaml",
  "keda.sh_clustertriggerauthentications.yaml",
  "keda.sh_scaledjobs.yaml",
  "eventing.keda.sh_cloudeventsources.yaml",
  "eventing.keda.sh_clustercloudeventsources.yaml",
];

/** A running KEDA. */
export interface Keda {
  operatorLog: string;
  adapterLog: string;
  /** Removes the metrics APIService, then stops both processes (the CRDs stay with the control plane). */
  stop(): Promise<void>;
}

/** Options of {@link startKeda}. */
export interface KedaOptions {
  /**
   * IPv4 address of a DNS server answering the cluster's names (the real node's CoreDNS, on
   * `RealNode.hostIp`). KEDA's processes then read a resolv.conf of their own, bind-mounted over
   * /etc/resolv.conf in a private mount namespace (needs root), with a pod's search path in namespace
   * `keda`. Without it they use the host's resolver.
   */
  clusterDns?: string;
}

/** The resolv.conf of a pod in namespace `keda` (the kubelet's ClusterFirst policy), pointed at `dns`. */
export function kedaResolvConf(dns: string): string {
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(dns)) throw new Error(`clusterDns must be an IPv4 address, got ${JSON.stringify(dns)}`);
  return `nameserver ${dns}\nsearch keda.svc.cluster.local svc.cluster.local cluster.local\noptions ndots:5\n`;
}

/** Whether scripts/build-keda.sh's binaries are in its cache already (its `--print-dir`). */
export function kedaBuilt(): boolean {
  const dir = Bun.spawnSync(["bash", join(ROOT, "scripts/build-keda.sh"), "--print-dir"], { stdout: "pipe" })
    .stdout.toString()
    .trim();
  return dir !== "" && existsSync(join(dir, "keda-operator")) && existsSync(join(dir, "keda-adapter"));
}

/** Builds (or finds) the binaries. @throws Error with the script's last line. */
export async function kedaBinaries(): Promise<string> {
  const p = Bun.spawn(["nice", "-n", "10", "bash", join(ROOT, "scripts/build-keda.sh")], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`scripts/build-keda.sh failed: ${err.trim().split("\n").pop()}`);
  return out.trim().split("\n").pop()!;
}

function openssl(dir: string, args: string[]): void {
  const r = Bun.spawnSync(["openssl", ...args], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`openssl ${args.slice(0, 2).join(" ")} failed: ${r.stderr.toString().trim()}`);
}

/** This host's first non-internal IPv4 address (where the apiserver reaches the adapter). */
function hostAddress(): string {
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  throw new Error("no non-loopback IPv4 address on this host for the adapter's Endpoints");
}

async function ok(res: Response, what: string): Promise<void> {
  if (!res.ok && res.status !== 409) throw new Error(`${what}: ${res.status} ${await res.text()}`);
}

/**
 * Starts KEDA against `cp` (which must have the aggregation layer), with its files in `dir`.
 * @throws Error with a log tail when the APIService does not become Available within 60 s.
 */
export async function startKeda(cp: ControlPlane, dir: string, opts: KedaOptions = {}): Promise<Keda> {
  const bin = await kedaBinaries();
  // Go's resolver (CGO off) reads /etc/resolv.conf only: the file is swapped in a mount namespace of
  // the process's own (unshare and sh exec, so the pid stays the one the watchdog and stop() know).
  let wrap: string[] = [];
  if (opts.clusterDns !== undefined) {
    const resolvConf = join(dir, "resolv.conf");
    await Bun.write(resolvConf, kedaResolvConf(opts.clusterDns));
    wrap = ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", 'mount --bind "$0" /etc/resolv.conf && exec "$@"', resolvConf];
  }
  const gomodcache = Bun.spawnSync(["go", "env", "GOMODCACHE"], { stdout: "pipe" }).stdout.toString().trim();
  const crdDir = join(gomodcache, `github.com/kedacore/keda/v2@${KEDA_VERSION}/config/crd/bases`);
  for (const f of CRDS) {
    const crd = YAML.parse(readFileSync(join(crdDir, f), "utf8")) as { metadata: { name: string } };
    await ok(await cp.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd), `CRD ${crd.metadata.name}`);
  }
  await ok(await cp.request("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "keda" } }), "namespace keda");
  const certs = join(dir, "keda-certs");
  mkdirSync(certs, { recursive: true });
  const ec = ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out"];
  openssl(certs, [...ec, "ca.key"]);
  openssl(certs, [
    "req",
    "-x509",
    "-new",
    "-key",
    "ca.key",
    "-subj",
    "/CN=keda-test-ca",
    "-days",
    "2",
    "-out",
    "ca.crt",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  openssl(certs, [...ec, "tls.key"]);
  openssl(certs, ["req", "-new", "-key", "tls.key", "-subj", "/CN=keda", "-out", "tls.csr"]);
  await Bun.write(join(certs, "ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n");
  openssl(certs, [
    "x509",
    "-req",
    "-in",
    "tls.csr",
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-days",
    "2",
    "-extfile",
    "ext",
    "-out",
    "tls.crt",
  ]);
  const kc = cp.certKubeconfig;
  const grpc = freePort();
  const adapterPort = freePort();
  const env = { WATCH_NAMESPACE: "", POD_NAMESPACE: "keda", KEDA_CLUSTER_OBJECT_NAMESPACE: "keda", KUBECONFIG: kc };
  const operatorLog = join(dir, "keda-operator.log");
  const adapterLog = join(dir, "keda-adapter.log");
  const procs: ManagedProcess[] = [];
  procs.push(
    startProcess({
      name: "keda-operator",
      logFile: operatorLog,
      env,
      cmd: [
        ...wrap,
        join(bin, "keda-operator"),
        `--kubeconfig=${kc}`,
        "--leader-elect=false",
        "--metrics-bind-address=0",
        `--health-probe-bind-address=127.0.0.1:${freePort()}`,
        `--metrics-service-bind-address=127.0.0.1:${grpc}`,
        `--cert-dir=${certs}`,
      ],
    }),
  );
  procs.push(
    startProcess({
      name: "keda-adapter",
      logFile: adapterLog,
      env,
      cmd: [
        ...wrap,
        join(bin, "keda-adapter"),
        `--kubeconfig=${kc}`,
        `--lister-kubeconfig=${kc}`,
        `--authentication-kubeconfig=${kc}`,
        `--authorization-kubeconfig=${kc}`,
        `--secure-port=${adapterPort}`,
        // Its own /metrics listener (default :8080, a panic when taken: two suites on one machine collided there).
        `--port=${freePort()}`,
        `--cert-dir=${certs}`,
        `--metrics-service-address=127.0.0.1:${grpc}`,
        "--metrics-service-grpc-authority=localhost",
      ],
    }),
  );
  const stop = async () => {
    // The APIService first: one whose adapter is gone fails discovery, and the namespace controller
    // then finishes no namespace deletion in this cluster (real-provision's timed out after KEDA's test).
    await cp.request("DELETE", "/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.external.metrics.k8s.io").catch(() => undefined);
    await Promise.all(procs.map((p) => p.kill()));
  };
  const host = hostAddress();
  const name = "keda-metrics-apiserver";
  try {
    await ok(
      await cp.request("POST", "/api/v1/namespaces/keda/services", {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name, namespace: "keda" },
        spec: { ports: [{ name: "https", port: 443, targetPort: adapterPort }] },
      }),
      "Service",
    );
    await ok(
      await cp.request("POST", "/api/v1/namespaces/keda/endpoints", {
        apiVersion: "v1",
        kind: "Endpoints",
        metadata: { name, namespace: "keda" },
        subsets: [{ addresses: [{ ip: host }], ports: [{ name: "https", port: adapterPort }] }],
      }),
      "Endpoints",
    );
    await ok(
      await cp.request("POST", "/apis/discovery.k8s.io/v1/namespaces/keda/endpointslices", {
        apiVersion: "discovery.k8s.io/v1",
        kind: "EndpointSlice",
        metadata: { name: `${name}-1`, namespace: "keda", labels: { "kubernetes.io/service-name": name } },
        addressType: "IPv4",
        endpoints: [{ addresses: [host], conditions: { ready: true } }],
        ports: [{ name: "https", port: adapterPort, protocol: "TCP" }],
      }),
      "EndpointSlice",
    );
    await ok(
      await cp.request("POST", "/apis/apiregistration.k8s.io/v1/apiservices", {
        apiVersion: "apiregistration.k8s.io/v1",
        kind: "APIService",
        metadata: { name: "v1beta1.external.metrics.k8s.io" },
        spec: {
          service: { name, namespace: "keda", port: 443 },
          group: "external.metrics.k8s.io",
          version: "v1beta1",
          insecureSkipTLSVerify: true,
          groupPriorityMinimum: 100,
          versionPriority: 100,
        },
      }),
      "APIService",
    );
    await until(
      "KEDA's metrics APIService is Available",
      async () => {
        const res = await cp.request("GET", "/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.external.metrics.k8s.io");
        const s = (await res.json()) as { status?: { conditions?: { type: string; status: string }[] } };
        return s.status?.conditions?.some((c) => c.type === "Available" && c.status === "True");
      },
      60_000,
      250,
    );
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}\noperator:\n${await tail(operatorLog)}\nadapter:\n${await tail(adapterLog)}`);
  }
  return { operatorLog, adapterLog, stop };
}
