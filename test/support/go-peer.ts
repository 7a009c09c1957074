/**
 * The Go peer module (test/go/peer, built by scripts/build-go-tools.sh over the real Go SDK) beside
 * `tinyhost run` on the test control plane: starting the peer the way the chart starts a Go module
 * (the SDK's own `run` command, its flags and environment — cli/run.go, runtime-spec §9), the
 * records its components and their tinyhost twins (test/fixtures/go-peer/components) write, and
 * TinyNodes that put each node of a flow on either runtime.
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { base64Json, EXECUTION_MODE_DURABLE, EXECUTION_MODE_LABEL, sanitizeResourceName, type TinyNode } from "../../src/core/api/index.ts";
import { goTool } from "./go-tools.ts";
import { startModuleProcess, type ModuleProcess } from "./module-process.ts";
import { freePort, startProcess, tail, waitUntil, type ManagedProcess } from "./process.ts";

/** The tinyhost twins of the peer's components. */
export const TWIN_COMPONENTS = "test/fixtures/go-peer/components";

/** How the two modules talk: the SDK's transport selection (runtime-spec §4.1). */
export type Wire = "core" | "jetstream" | "grpc";

/** The environment that selects `wire` for a Go module and for tinyhost alike (runtime-spec §4.1). */
export function wireEnv(wire: Wire, natsUrl: string | undefined): Record<string, string> {
  if (wire === "grpc") return { TINY_NATS_URL: "", TINY_NATS_TRANSPORT: "" };
  if (!natsUrl) throw new Error(`wireEnv: the ${wire} wire needs a NATS URL`);
  return { TINY_NATS_URL: natsUrl, TINY_NATS_TRANSPORT: wire === "jetstream" ? "jetstream" : "" };
}

/** Options of {@link startGoPeer}. */
export interface GoPeerOptions {
  /** Pod name (HOSTNAME): the Lease identity and the JetStream system consumer suffix. */
  hostname: string;
  /** `--name`. */
  name: string;
  /** `--namespace`. */
  namespace: string;
  /** `--kubeconfig`. */
  kubeconfig: string;
  /** `--version`; default "1.0.0". */
  version?: string;
  /** Transport and telemetry environment (see {@link wireEnv}; OTLP_DSN; PEER_RECORD_FILE). */
  env?: Record<string, string>;
  /** Directory for the log file `<hostname>.log`. */
  logDir: string;
  /** Wait for /readyz 200 (the SDK serves it once a leader is observed and its manager runs); default true. */
  waitReady?: boolean;
}

/** A running Go peer. */
export interface GoPeer extends ManagedProcess {
  /** `http://127.0.0.1:<port>` of its health probe server. */
  readonly healthUrl: string;
  readonly logFile: string;
}

/**
 * Starts the peer (`peer run …`, the SDK's command) and by default waits up to 60 s for /readyz.
 * Its gRPC server binds 127.0.0.1:0 (used only without NATS), metrics are off.
 * @throws Error with the log tail when it exits or does not become ready.
 */
export async function startGoPeer(o: GoPeerOptions): Promise<GoPeer> {
  const bin = await goTool("peer");
  const port = freePort();
  const healthUrl = `http://127.0.0.1:${port}`;
  const logFile = join(o.logDir, `${o.hostname}.log`);
  const proc = startProcess({
    name: `go peer ${o.hostname}`,
    cmd: [
      bin,
      "run",
      "--name",
      o.name,
      "--version",
      o.version ?? "1.0.0",
      "--namespace",
      o.namespace,
      "--kubeconfig",
      o.kubeconfig,
      "--health-probe-bind-address",
      `127.0.0.1:${port}`,
      "--metrics-bind-address",
      "0",
      "--grpc-server-bind-address",
      "127.0.0.1:0",
    ],
    logFile,
    // Nothing of the test runner's own transport/telemetry settings leaks into the peer.
    env: { HOSTNAME: o.hostname, TINY_NATS_URL: "", TINY_NATS_TRANSPORT: "", OTLP_DSN: "", ...o.env },
  });
  const peer: GoPeer = { ...proc, healthUrl, logFile };
  if (o.waitReady ?? true) {
    let exited: number | undefined;
    void proc.exited.then((c) => (exited = c));
    try {
      await waitUntil(
        `go peer ${o.hostname} /readyz 200`,
        async () => {
          if (exited !== undefined) throw new Error(`the peer exited with code ${exited}`);
          const r = await fetch(`${healthUrl}/readyz`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
          return r?.status === 200;
        },
        60_000,
        200,
      );
    } catch (err) {
      await proc.kill();
      throw new Error(`${(err as Error).message}\n--- ${logFile} ---\n${await tail(logFile, 30)}`);
    }
  }
  return peer;
}

/** Options of {@link startTinyhostBeside} (as {@link GoPeerOptions}). */
export interface TinyhostBesideOptions {
  /** Pod name (HOSTNAME). */
  hostname: string;
  /** `--name`. */
  name: string;
  /** `--namespace`. */
  namespace: string;
  /** `--kubeconfig`. */
  kubeconfig: string;
  /** Transport and telemetry environment; PEER_RECORD_FILE. */
  env?: Record<string, string>;
  /** Directory for the log file `<hostname>.log`. */
  logDir: string;
}

/** `tinyhost run` with the twins of the peer's components. */
export function startTinyhostBeside(o: TinyhostBesideOptions): Promise<ModuleProcess> {
  return startModuleProcess({ ...o, components: TWIN_COMPONENTS, env: { OTLP_DSN: "", ...o.env } });
}

/** One line of a record file (test/go/peer/record.go, test/fixtures/go-peer/record.ts). */
export interface PeerRecord {
  /** Which runtime ran the component. */
  runtime: "go" | "tinyhost";
  /** HOSTNAME of the process. */
  pod: string;
  /** Full node name. */
  node: string;
  component: string;
  /** The port the call arrived on. */
  port: string;
  /** The `data` field of what the component got (after the edge configuration was evaluated). */
  data: unknown;
  /** controller only: the leader flag the runtime gave the `_control` call. */
  leader?: boolean;
  /** relay/controller: what the downstream output returned (JSON), absent for no value. */
  reply?: unknown;
  /** relay/controller: the downstream error's text, as this runtime reports it. */
  error?: string;
  /** The error's code (Go `perrors.ErrorCode`, tinyhost `errorCode`), when it has one. */
  code?: string;
  /** Trace id the component ran under (32 hex), when tracing is on. */
  traceId?: string;
  /** Durable run id the component ran in, if any. */
  runId?: string;
}

/** Every record in `file` (none when it does not exist yet). */
export function readRecords(file: string): PeerRecord[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as PeerRecord);
}

/**
 * Waits until some record of `files` matches `pick`, and returns it.
 * @throws Error naming `what` and listing the records seen after `timeoutMs`.
 */
export async function waitForRecord(files: readonly string[], what: string, pick: (r: PeerRecord) => boolean, timeoutMs = 30_000): Promise<PeerRecord> {
  let found: PeerRecord | undefined;
  try {
    await waitUntil(what, async () => (found = files.flatMap(readRecords).find(pick)) !== undefined, timeoutMs, 100);
  } catch (err) {
    const seen = files.flatMap(readRecords).map((r) => JSON.stringify(r));
    throw new Error(`${(err as Error).message}; records:\n${seen.join("\n") || "(none)"}`);
  }
  return found!;
}

/** Starts an empty record file (so a reader sees it exists) and returns its path. */
export function recordFile(dir: string, name: string): string {
  const file = join(dir, `${name}.records.jsonl`);
  appendFileSync(file, "");
  return file;
}

/** One node of a mixed flow. */
export interface MixedNodeSpec {
  /** Module the node runs on (its name's second segment and `spec.module`). */
  module: string;
  /** Component (`relay`, `echo`, `sink`, `fail`, `controller`). */
  component: string;
  /** Unique suffix within the flow. */
  id: string;
  /** Opt into durable execution (label `tinysystems.io/execution-mode: durable`, runtime-spec §1.7). */
  durable?: boolean;
}

/**
 * A node name as the platform builds it: `<flow prefix>.<module>.<component>-<id>` with module and
 * component sanitized (`durable_step` → `durable-step`; components.md §6, Go `generateNodeName`).
 */
export function mixedNodeName(prefix: string, n: MixedNodeSpec): string {
  return `${prefix}.${sanitizeResourceName(n.module)}.${sanitizeResourceName(n.component)}-${n.id}`;
}

/** An edge of a mixed flow: `from` node's `port` → `to` node's `toPort`, with the target's configuration. */
export interface MixedEdge {
  from: MixedNodeSpec;
  port?: string;
  to: MixedNodeSpec;
  toPort?: string;
  /** The edge configuration on the target port (evaluated by the TARGET's runtime); default `{data: "{{$.data}}"}`. */
  configuration?: unknown;
}

/**
 * The TinyNodes of a flow as the platform writes them: edges on the source node, the edge's
 * configuration on the target node keyed by the source port (`from`), base64 JSON.
 */
export function mixedFlow(namespace: string, prefix: string, nodes: readonly MixedNodeSpec[], edges: readonly MixedEdge[]): TinyNode[] {
  const out = new Map<MixedNodeSpec, TinyNode>();
  for (const n of nodes) {
    out.set(n, {
      apiVersion: "operator.tinysystems.io/v1alpha1",
      kind: "TinyNode",
      metadata: { name: mixedNodeName(prefix, n), namespace, labels: n.durable ? { [EXECUTION_MODE_LABEL]: EXECUTION_MODE_DURABLE } : {} },
      spec: { module: n.module, component: n.component, edges: [], ports: [] },
    } as TinyNode);
  }
  edges.forEach((e, i) => {
    const src = out.get(e.from);
    const dst = out.get(e.to);
    if (!src || !dst) throw new Error(`mixedFlow: edge ${i} names a node that is not in the flow`);
    const fromAddr = `${src.metadata.name}:${e.port ?? "out"}`;
    const toAddr = `${dst.metadata.name}:${e.toPort ?? "in"}`;
    src.spec.edges!.push({ id: `${prefix}-e${i}`, port: e.port ?? "out", to: toAddr, flowID: prefix });
    dst.spec.ports!.push({ from: fromAddr, port: e.toPort ?? "in", configuration: base64Json(e.configuration ?? { data: "{{$.data}}" }) });
  });
  return [...out.values()];
}
