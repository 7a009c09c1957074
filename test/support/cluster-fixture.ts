/**
 * What most cluster tests open first: the run's control plane, a REST client authenticated as its
 * token user, and a scratch directory for logs (under the run's temp dir when there is one).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKubeClient, type KubeClient } from "../../src/k8s/client/index.ts";
import { getControlPlane, type ControlPlane } from "./control-plane.ts";

/** The shared pieces of a cluster test. */
export interface ClusterFixture {
  cp: ControlPlane;
  kube: KubeClient;
  /** A fresh directory named `<prefix>-XXXXXX`. */
  dir: string;
}

/** Opens the control plane (starting one when the file runs alone), a client and a scratch dir. */
export async function openClusterFixture(prefix: string): Promise<ClusterFixture> {
  const cp = await getControlPlane();
  const kube = await createKubeClient({ kubeconfig: cp.tokenKubeconfig, env: {} });
  const dir = mkdtempSync(join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), `${prefix}-`));
  return { cp, kube, dir };
}
