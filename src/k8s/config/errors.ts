/**
 * The one error class of config loading: a kubeconfig or in-cluster file that is missing, unreadable
 * or lacks a field, and a credential plugin that fails.
 */
import { TinyError } from "../../core/errors.ts";

/**
 * Thrown when a Kubernetes client configuration cannot be loaded or its credentials cannot be
 * obtained. The message names the file (or "in-cluster") and the field that is missing or bad,
 * e.g. `/home/a/.kube/config: users[name="dev"].user.exec.apiVersion: "v1alpha1" is not supported`.
 */
export class KubeConfigError extends TinyError<"K8S_CONFIG"> {
  /** The file the problem is in, or `in-cluster`. */
  readonly file: string;
  /** The field path within that file, e.g. `clusters[name="kind"].cluster.server`; empty when the whole file is at fault. */
  readonly field: string;

  /**
   * @param file - the kubeconfig path, or `in-cluster`.
   * @param field - the field path within it ("" for the whole file).
   * @param problem - what is wrong, e.g. `is missing`.
   * @param options - `cause`, the underlying error if any.
   */
  constructor(file: string, field: string, problem: string, options?: { cause?: unknown }) {
    super("K8S_CONFIG", field ? `${file}: ${field} ${problem}` : `${file}: ${problem}`, options);
    this.name = "KubeConfigError";
    this.file = file;
    this.field = field;
  }
}
