/**
 * Loading a built image into a containerd — the test node's, or any a user names — the way a node
 * without a registry gets images: `ctr images import` of the docker-archive into the namespace
 * the kubelet's CRI uses (`k8s.io`), unpacked for containerd's default snapshotter.
 */
import { ensureDebianBinary } from "../../test/support/debian-package.ts";
import { runCommand, type LogSink } from "./run-command.ts";

/** containerd namespace of the kubelet's CRI plugin. */
export const CRI_NAMESPACE = "k8s.io";

/** Environment variable naming the containerd socket `npm run image` loads into (like `--load`). */
export const CONTAINERD_ADDRESS_ENV = "TINYHOST_CONTAINERD_ADDRESS";

/** Options of {@link importImage}. */
export interface ImportOptions {
  /** containerd's gRPC socket, e.g. `/run/containerd/containerd.sock`. */
  address: string;
  /** containerd namespace (default {@link CRI_NAMESPACE}). */
  namespace?: string;
  /** Where ctr's output goes (default stderr). */
  log?: LogSink | "quiet";
}

/**
 * Imports the docker-archive `archive` (ctr from Debian's `containerd` package, installed when
 * missing).
 * @throws CommandError when ctr fails (e.g. no containerd at the address).
 */
export async function importImage(archive: string, options: ImportOptions): Promise<void> {
  const ctr = ensureDebianBinary("ctr", "containerd");
  await runCommand([ctr, "--address", options.address, "--namespace", options.namespace ?? CRI_NAMESPACE, "images", "import", archive], {
    log: options.log ?? "stderr",
  });
}
