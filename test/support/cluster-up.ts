/**
 * `npm run cluster:up`: a local control plane (kube-apiserver + etcd, CRDs applied) and a
 * nats-server for a human; prints the kubeconfig path and NATS URL; stops them on Ctrl-C.
 *
 * `npm run cluster:up -- --real` adds a real node beside them (test/support/real-node/node.ts:
 * containerd, kubelet, kube-proxy, kube-controller-manager, kube-scheduler, CoreDNS, Traefik), prints
 * `kubeconfig: <path>`, `ingress: http://127.0.0.1:<port>` and one line per part with the time it
 * answered; Ctrl-C or SIGTERM stops everything and removes what the node left (teardown.sh).
 *
 * `npm run cluster:up -- --real --keda` also starts KEDA's operator and metrics adapter on the host
 * after the node (test/support/keda.ts; built by scripts/build-keda.sh when missing), resolving the
 * cluster's names through the node's CoreDNS, so a ScaledObject reads the broker by its Service name
 * as in a real cluster. `--keda` without `--real` is refused: no pod could start.
 */
import { join } from "node:path";
import { parseClusterUpArgs, type ClusterUpArgs } from "./cluster-up-args.ts";
import { KEDA_VERSION, kedaBinaries, kedaBuilt, startKeda, type Keda } from "./keda.ts";
import { startSuiteServers } from "./suite.ts";
import { startRealNode, type RealNode } from "./real-node/node.ts";

let args: ClusterUpArgs;
try {
  args = parseClusterUpArgs(process.argv.slice(2));
} catch (e) {
  console.error(`cluster:up: ${(e as Error).message}`);
  process.exit(2);
}
const { real, keda: withKeda } = args;
// KEDA's build (when missing) starts first, niced, beside the node's; awaited after the node.
let kedaBuild: Promise<string> | undefined;
if (withKeda) {
  console.log(
    kedaBuilt()
      ? `KEDA ${KEDA_VERSION}: cached (scripts/build-keda.sh)`
      : `KEDA ${KEDA_VERSION}: building with scripts/build-keda.sh — about 35 min on 2 cores from a cold Go cache (a few seconds once cached)`,
  );
  kedaBuild = kedaBinaries();
  kedaBuild.catch(() => undefined); // awaited below; reported there
}

const t0 = performance.now();
const since = () => `${((performance.now() - t0) / 1000).toFixed(1)} s`;
// The aggregation layer serves KEDA's external.metrics.k8s.io through its adapter.
const servers = await startSuiteServers({ controlPlane: { admitServiceAccounts: real, aggregationLayer: withKeda } });
const cp = servers.controlPlane;
let node: RealNode | undefined;
let keda: Keda | undefined;
let stopping = false;
const stopAll = async () => {
  // KEDA first: its stop removes the metrics APIService before the adapter goes.
  await keda?.stop();
  await node?.stop();
  await servers.stop();
};
// Ctrl-C while the node is still starting: its teardown runs from the process's exit hook.
const early = () => void stopAll().then(() => process.exit(130));
process.once("SIGINT", early);
process.once("SIGTERM", early);
if (real) {
  console.log(`kube-apiserver + etcd ready at ${since()}`);
  const nodeStart = performance.now();
  try {
    node = await startRealNode(cp, {
      onPart: (p) => console.log(`${p.name.padEnd(24)} ready at ${((nodeStart - t0 + p.readyMs) / 1000).toFixed(1)} s`),
    });
  } catch (e) {
    console.error(`cluster:up: ${(e as Error).message}`);
    await servers.stop();
    process.exit(1);
  }
}
if (node && kedaBuild) {
  try {
    if (!kedaBuilt()) console.log("waiting for KEDA's build (scripts/build-keda.sh)…");
    await kedaBuild;
    const kedaStart = performance.now();
    keda = await startKeda(cp, join(servers.env.TINYHOST_TEST_TMP!, "keda"), { clusterDns: node.hostIp });
    console.log(`keda: operator+adapter ready (${Math.round(performance.now() - kedaStart)} ms)`);
  } catch (e) {
    console.error(`cluster:up: KEDA did not start: ${(e as Error).message}`);
    await stopAll();
    process.exit(1);
  }
}
process.off("SIGINT", early);
process.off("SIGTERM", early);
// The namespace modules run in by default (`tinyhost run --namespace`, `provision`), labelled as
// `tiny` labels the namespaces it manages.
const NS = "tinysystems";
const created = await cp.request("POST", "/api/v1/namespaces", { metadata: { name: NS, labels: { "tinysystems.io/managed": "true" } } });
if (!created.ok && created.status !== 409) console.error(`could not create namespace ${NS}: HTTP ${created.status}`);
if (node) {
  console.log(`
tinyhost local cluster with a real node is up (${since()}).

kubeconfig: ${cp.tokenKubeconfig}
ingress: ${node.ingressUrl}
  kubeconfig (client cert user): ${cp.certKubeconfig}
  apiserver:                     ${cp.server}
  NATS (host only):              ${servers.nats.url}
  node:                          ${node.nodeName} (${node.nodeIp}, pods ${node.podCidr}, logs ${node.logDir})
  containerd:                    ${node.containerdAddress} (load images: npm run image -- --load ${node.containerdAddress})
  namespace:                     ${NS} (created)${
    keda
      ? `
  KEDA:                          ${KEDA_VERSION} operator + metrics adapter on this host, resolving cluster names through CoreDNS (${node.hostIp})
                                 (logs ${keda.operatorLog}, ${keda.adapterLog})`
      : ""
  }

Pods run for real; images come from containerd's k8s.io namespace only (no registry: imagePullPolicy Never or IfNotPresent).
Press Ctrl-C to stop everything.`);
} else {
  console.log(`
tinyhost local cluster is up.

  kubeconfig (token user):       ${cp.tokenKubeconfig}
  kubeconfig (client cert user): ${cp.certKubeconfig}
  apiserver:                     ${cp.server}
  NATS:                          ${servers.nats.url}

  namespace:                     ${NS} (created)

Run a module against it (HOSTNAME names the pod: the Lease identity), then apply a flow:
  HOSTNAME=dev-0 TINY_NATS_URL=${servers.nats.url} npm run tinyhost -- run --name tinyhost --namespace ${NS} --kubeconfig ${cp.tokenKubeconfig}
  kubectl --kubeconfig ${cp.tokenKubeconfig} apply -n ${NS} -f examples/tick-count/
Press Ctrl-C to stop both. (npm run cluster:up -- --real adds a real node: kubelet, containerd, kube-proxy, CoreDNS, Traefik;
--real --keda adds KEDA too.)`);
}

// Wait for Ctrl-C on one ref'd timer. Not on a promise that never settles: the servers' child
// processes are unref'd (test/support/process.ts, so a test runner can exit past them), and with
// nothing ref'd Bun 1.4 polls epoll with timeout 0 — one core at 100 % for as long as this runs
// (issue 21). A timer keeps the event loop asleep in epoll until the signal comes, whatever stdin is.
const keepAlive = setInterval(() => {}, 2 ** 31 - 1);
const stop = async () => {
  if (stopping) return;
  stopping = true;
  console.log("\nstopping…");
  await stopAll();
  clearInterval(keepAlive);
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
