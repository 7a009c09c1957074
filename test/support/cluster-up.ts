/**
 * `npm run cluster:up`: a local control plane (kube-apiserver + etcd, CRDs applied) and a
 * nats-server for a human; prints the kubeconfig path and NATS URL; stops them on Ctrl-C.
 */
import { startSuiteServers } from "./suite.ts";

const servers = await startSuiteServers();
const cp = servers.controlPlane;
console.log(`
tinyhost local cluster is up.

  kubeconfig (token user):       ${cp.tokenKubeconfig}
  kubeconfig (client cert user): ${cp.certKubeconfig}
  apiserver:                     ${cp.server}
  NATS:                          ${servers.nats.url}

Try:  npm run tinyhost -- run --kubeconfig ${cp.tokenKubeconfig} --namespace default
      TINY_NATS_URL=${servers.nats.url} ...
Press Ctrl-C to stop both.`);

const stop = async () => {
  console.log("\nstopping…");
  await servers.stop();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
await new Promise(() => {});
