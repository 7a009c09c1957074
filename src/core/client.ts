/**
 * What a component receives in `onClient` (runtime-spec §1.5 ClientAware, §7): the module's view
 * of its platform. In a cluster the resource manager (src/k8s/resources) implements it against the
 * release's Service and Ingress; in local mode (src/local) `exposePort` answers
 * `http://localhost:<port>` and nothing is written anywhere.
 */

/** Arguments of {@link ModuleClient.exposePort} (runtime-spec §7.1). */
export interface ExposePortRequest {
  /**
   * Prefix of the automatic hostname `<autoHostName>-<ingress suffix annotation>`; omitted or
   * empty → no automatic hostname.
   */
  autoHostName?: string;
  /** Extra public hostnames (RFC 1123; a leading `*.` wildcard label is allowed). */
  hostnames?: string[];
  /** TCP port the component listens on, 1–65535. */
  port: number;
}

/** The platform operations a component may call. */
export interface ModuleClient {
  /** Namespace the module runs in. */
  readonly namespace: string;
  /** `"cluster"` when backed by Kubernetes, `"local"` in `tinyhost run --local`. */
  readonly mode: "cluster" | "local";
  /**
   * Makes `port` reachable: a Service port and one Ingress rule + TLS entry per hostname in a
   * cluster; nothing in local mode. Resolves to the public addresses (bare hostnames in a
   * cluster, `http://localhost:<port>` locally).
   * @throws an error naming the bad value when a hostname or the port is invalid (nothing changed).
   */
  exposePort(request: ExposePortRequest): Promise<string[]>;
  /** Removes exactly what {@link ModuleClient.exposePort} added for `port` (runtime-spec §7.2). */
  disclosePort(port: number): Promise<void>;
}

/** True when `x` looks like a {@link ModuleClient} (components guard `onClient`'s argument with it). */
export function isModuleClient(x: unknown): x is ModuleClient {
  return typeof x === "object" && x !== null && typeof (x as ModuleClient).exposePort === "function" && typeof (x as ModuleClient).disclosePort === "function";
}
