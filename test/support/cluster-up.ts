/**
 * `npm run cluster:up`: a local control plane (kube-apiserver + etcd, CRDs applied) and a
 * nats-server for a human; prints the kubeconfig path and NATS URL; stops them on Ctrl-C.
 */
import { startSuiteServers } from "./suite.ts";

const servers = await startSuiteServers();
const cp = servers.controlPlane;
// The namespace modules run in by default (`tinyhost run --namespace`, `provision`), labelled as
// `tiny` labels the namespaces it manages.
const NS = "tinysystems";
const created = await cp.request("POST", "/api/v1/namespaces", { metadata: { name: NS, labels: { "tinysystems.io/managed": "true" } } });
if (!created.ok && created.status !== 409) console.error(`could not create namespace ${NS}: HTTP ${created.status}`);
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
Press Ctrl-C to stop both.`);

// Wait for Ctrl-C on one ref'd timer. Not on a promise that never settles: the servers' child
// processes are unref'd (test/support/process.ts, so a test runner can exit past them), and with
// nothing ref'd Bun 1.4 polls epoll with timeout 0 — one core at 100 % for as long as this runs
// (issue 21). A timer keeps the event loop asleep in epoll until the signal comes, whatever stdin is.
const keepAlive = setInterval(() => {}, 2 ** 31 - 1);
const stop = async () => {
  console.log("\nstopping…");
  await servers.stop();
  clearInterval(keepAlive);
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
