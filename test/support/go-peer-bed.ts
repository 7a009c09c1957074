/**
 * A mixed-module bed: one namespace on the test control plane with the Go peer (module `go-<x>`)
 * and `tinyhost run` with the peer's component twins (module `th-<x>`) running side by side over
 * one wire, both exporting traces to one in-process OTLP/gRPC receiver, each writing its records
 * to its own file. Tests build flows across the two with {@link mixedFlow} and start them the way
 * the platform does ({@link MixedBed.trigger}).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { headers as natsHeaders } from "@nats-io/transport-node";
import { sanitizeResourceName, type TinyNode } from "../../src/core/api/index.ts";
import type { KubeClient } from "../../src/k8s/client/index.ts";
import { tinyModules, tinyNodes } from "../../src/k8s/controllers/index.ts";
import { logger } from "../../src/telemetry/log.ts";
import { GrpcCallError, GrpcTransport } from "../../src/transport/grpc/index.ts";
import { connectNats } from "../../src/transport/nats/index.ts";
import { H_FROM, H_TO } from "../../src/transport/nats/wire.ts";
import { openClusterFixture } from "./cluster-fixture.ts";
import type { ControlPlane } from "./control-plane.ts";
import { waitForReconciled } from "./flows.ts";
import {
  recordFile,
  startGoPeer,
  startTinyhostBeside,
  wireEnv,
  type GoPeer,
  type MixedNodeSpec,
  type PeerRecord,
  type Wire,
  readRecords,
  waitForRecord,
  mixedNodeName,
  mixedFlow,
} from "./go-peer.ts";
import type { ModuleProcess } from "./module-process.ts";
import { startNats, type NatsServer } from "./nats.ts";
import { startOtlpReceiver, type OtlpReceiver } from "./otlp-receiver.ts";
import { waitUntil, type ManagedProcess } from "./process.ts";

/** The platform's `send_signal` sender (runtime-spec §4.5 `FromSignal`). */
const FROM_SIGNAL = "signal";

/** One module of the bed. */
export interface BedModule {
  /** Module name (`--name`) = the nodes' module segment. */
  readonly name: string;
  /** Pod name (HOSTNAME). */
  readonly pod: string;
  /** Its record file. */
  readonly records: string;
  /** A node of this module. */
  node(component: string, id: string, durable?: boolean): MixedNodeSpec;
}

/** One more module process of a bed: its module name, pod name and wire (default the bed's). */
export interface SpawnOptions {
  name: string;
  hostname: string;
  wire?: Wire;
  /** More environment for this process only (after the bed's), e.g. a low `TINYHOST_MAX_CONCURRENT_HOPS`. */
  env?: Record<string, string>;
}

/** A running bed. */
export interface MixedBed {
  readonly wire: Wire;
  readonly cp: ControlPlane;
  readonly kube: KubeClient;
  readonly ns: string;
  readonly dir: string;
  /** The NATS server both modules use (private for JetStream; the suite's for core); none for gRPC. */
  readonly natsUrl: string | undefined;
  readonly privateNats: NatsServer | undefined;
  readonly otlp: OtlpReceiver;
  readonly go: BedModule & { readonly proc: GoPeer };
  readonly th: BedModule & { readonly proc: ModuleProcess };
  /** Stops one module's process and starts it again with the same flags and environment (same pod name). */
  restart(runtime: "go" | "tinyhost"): Promise<void>;
  /**
   * Starts one more module process in the bed's namespace on the bed's servers: another module, or
   * another replica of an existing one (same `name`, new `hostname`), on `wire` (default the bed's).
   * It writes its records to its own file, also read by {@link records}; {@link stop} stops it.
   */
  spawnGo(o: SpawnOptions): Promise<BedModule & { readonly proc: GoPeer }>;
  /** {@link spawnGo} for a tinyhost process. */
  spawnTinyhost(o: SpawnOptions): Promise<BedModule & { readonly proc: ModuleProcess }>;
  /** Both modules by runtime. */
  module(runtime: "go" | "tinyhost"): BedModule;
  /** Creates the nodes and waits until their modules' leaders reconciled them. */
  apply(nodes: readonly TinyNode[]): Promise<void>;
  /**
   * Sends `data` to `<node>:<port>` as the platform does (`From: signal`): over NATS a publish on
   * `tinymodule.<module>.sysmsg` for `_*` ports, else `.msg` (Go `wire.Publish`, fire-and-forget);
   * over gRPC a `Message` call to the module's advertised address (what a gRPC sender does),
   * which resolves when the chain has answered.
   */
  trigger(node: string, port: string, data: unknown): Promise<void>;
  /** Records of both modules. */
  records(): PeerRecord[];
  /** Waits for a record in either file. */
  waitForRecord(what: string, pick: (r: PeerRecord) => boolean, timeoutMs?: number): Promise<PeerRecord>;
  /** Stops both modules, the receiver and a private NATS. */
  stop(): Promise<void>;
}

let flowSeq = 0;

/** A fresh flow prefix (the platform's 8-hex `md5(project+flow)` slot). */
export function flowPrefix(): string {
  flowSeq += 1;
  return `${(process.pid % 0xffff).toString(16).padStart(4, "0")}${flowSeq.toString(16).padStart(4, "0")}`;
}

/** Options of {@link openMixedBed}. */
export interface MixedBedOptions {
  /** More environment for every module process of the bed (Go and tinyhost), e.g. DURABLE_JOURNAL. */
  env?: Record<string, string>;
}

/**
 * Opens a bed on `wire`. Core uses the suite's nats-server (TINYHOST_TEST_NATS_URL); JetStream a
 * private one (its `module-edges` stream would capture the shared server's subjects, see
 * docs/testing.md); gRPC none.
 * @throws Error with the log tail of a module that does not become ready.
 */
export async function openMixedBed(wire: Wire, tag: string, options: MixedBedOptions = {}): Promise<MixedBed> {
  const { cp, kube, dir: root } = await openClusterFixture(`go-peer-${tag}`);
  const ns = await cp.newNamespace(`gp-${tag}`);
  const dir = join(root, ns);
  mkdirSync(dir);
  let privateNats: NatsServer | undefined;
  let natsUrl: string | undefined;
  if (wire === "jetstream") {
    privateNats = await startNats();
    natsUrl = privateNats.url;
  } else if (wire === "core") {
    natsUrl = process.env.TINYHOST_TEST_NATS_URL;
    if (!natsUrl) {
      privateNats = await startNats({ jetstream: false });
      natsUrl = privateNats.url;
    }
  }
  const otlp = await startOtlpReceiver();
  const goName = `go-${tag}`;
  const thName = `th-${tag}`;
  const goRecords = recordFile(dir, goName);
  const thRecords = recordFile(dir, thName);
  const common = { namespace: ns, kubeconfig: cp.tokenKubeconfig, logDir: dir };
  const envFor = (w: Wire) => ({ ...wireEnv(w, natsUrl), OTLP_DSN: otlp.dsn, ...options.env });
  const startGo = (name = goName, hostname = `${goName}-0`, records = goRecords, w = wire, env: Record<string, string> = {}) =>
    startGoPeer({ ...common, hostname, name, env: { ...envFor(w), ...env, PEER_RECORD_FILE: records, OTEL_RESOURCE_ATTRIBUTES: `service.name=${name}` } });
  const startTh = (name = thName, hostname = `${thName}-0`, records = thRecords, w = wire, env: Record<string, string> = {}) =>
    startTinyhostBeside({ ...common, hostname, name, env: { ...envFor(w), ...env, PEER_RECORD_FILE: records } });
  const [goProc, thProc] = await Promise.all([startGo(), startTh()]);
  const mod = (name: string, pod: string, records: string): BedModule => ({
    name,
    pod,
    records,
    node: (component, id, durable) => ({ module: name, component, id, durable }),
  });
  const go = { ...mod(goName, `${goName}-0`, goRecords), proc: goProc };
  const th = { ...mod(thName, `${thName}-0`, thRecords), proc: thProc };
  const restart = async (runtime: "go" | "tinyhost") => {
    if (runtime === "go") {
      await go.proc.stop(9000);
      go.proc = await startGo();
    } else {
      await th.proc.stop(9000);
      th.proc = await startTh();
    }
  };
  const files = [goRecords, thRecords];
  const extras: ManagedProcess[] = [];
  const spawned = async <P extends ManagedProcess>(o: SpawnOptions, start: (records: string) => Promise<P>) => {
    const records = recordFile(dir, o.hostname);
    files.push(records);
    const proc = await start(records);
    extras.push(proc);
    return { ...mod(o.name, o.hostname, records), proc };
  };
  const spawnGo = (o: SpawnOptions) => spawned(o, (records) => startGo(o.name, o.hostname, records, o.wire, o.env));
  const spawnTinyhost = (o: SpawnOptions) => spawned(o, (records) => startTh(o.name, o.hostname, records, o.wire, o.env));

  let grpc: GrpcTransport | undefined;
  const grpcTo = async (module: string): Promise<GrpcTransport> => {
    grpc ??= new GrpcTransport({ log: logger.child({ component: "bed-grpc" }) });
    let addr = "";
    await waitUntil(
      `TinyModule ${module} status.addr`,
      async () => {
        addr = (await kube.get(tinyModules, sanitizeResourceName(module), ns)).status?.addr ?? "";
        return addr !== "";
      },
      30_000,
      200,
    );
    grpc.register(module, addr);
    return grpc;
  };

  const bed: MixedBed = {
    wire,
    cp,
    kube,
    ns,
    dir,
    natsUrl,
    privateNats,
    otlp,
    go,
    th,
    module: (runtime) => (runtime === "go" ? go : th),
    restart,
    spawnGo,
    spawnTinyhost,
    async apply(nodes) {
      for (const n of nodes) await kube.create(tinyNodes, { ...n, metadata: { ...n.metadata, namespace: ns } }, { namespace: ns });
      await waitForReconciled(
        kube,
        ns,
        nodes.map((n) => n.metadata.name!),
        60_000,
      );
    },
    async trigger(node, port, data) {
      const module = node.split(".")[1]!;
      if (wire === "grpc") {
        const t = await grpcTo(module);
        // A unary call blocks until the chain answers; a handler error is the chain's business (the
        // records show it), only a failed call is the bed's.
        const r = await t.send({ edgeId: "", from: FROM_SIGNAL, to: `${node}:${port}`, data, depth: 0 });
        if (r.kind === "fail" && r.error instanceof GrpcCallError) throw new Error(`trigger ${node}:${port} over gRPC failed: ${r.error.message}`);
        return;
      }
      const nc = await connectNats(natsUrl!, { name: "go-peer-bed-signal" });
      try {
        const h = natsHeaders();
        h.set(H_TO, `${node}:${port}`);
        h.set(H_FROM, FROM_SIGNAL);
        nc.publish(`tinymodule.${module}.${port.startsWith("_") ? "sysmsg" : "msg"}`, new TextEncoder().encode(JSON.stringify(data)), { headers: h });
        await nc.flush();
      } finally {
        await nc.close();
      }
    },
    records: () => files.flatMap(readRecords),
    waitForRecord: (what, pick, timeoutMs) => waitForRecord(files, what, pick, timeoutMs),
    async stop() {
      grpc?.close();
      await Promise.allSettled([go.proc.stop(9000), th.proc.stop(9000), ...extras.map((p) => p.stop(9000))]);
      await otlp.stop();
      await privateNats?.dispose();
    },
  };
  return bed;
}

/** The node name of `spec` in flow `prefix`. */
export function nameOf(prefix: string, spec: MixedNodeSpec): string {
  return mixedNodeName(prefix, spec);
}

/** What {@link busyRefusalThroughGo} set up and saw. */
export interface BusyRefusal {
  /** Node names: the tinyhost relay the trigger reaches, the Go relay, the tinyhost echo that is refused. */
  readonly first: string;
  readonly middle: string;
  readonly echo: string;
  /** The Go relay's record of the refusal its hop to `echo` got. */
  readonly mid: PeerRecord;
}

/**
 * A tinyhost module with one hop slot and no queue (`th-busy`), and the chain tinyhost relay → Go
 * relay → tinyhost echo: the trigger's hop holds the slot while the chain comes back to the
 * module, so the Go relay's hop to the echo is refused BUSY. Waits for the Go relay's record.
 */
export async function busyRefusalThroughGo(b: MixedBed): Promise<BusyRefusal> {
  const busy = await b.spawnTinyhost({ name: "th-busy", hostname: "th-busy-0", env: { TINYHOST_MAX_CONCURRENT_HOPS: "1", TINYHOST_HOP_QUEUE_WAIT_MS: "0" } });
  const p = flowPrefix();
  const [first, middle, echo] = [busy.node("relay", "1"), b.go.node("relay", "2"), busy.node("echo", "3")];
  await b.apply(
    mixedFlow(
      b.ns,
      p,
      [first, middle, echo],
      [
        { from: first, to: middle },
        { from: middle, to: echo },
      ],
    ),
  );
  await b.trigger(nameOf(p, first), "in", { data: { q: "busy" } });
  const mid = await b.waitForRecord("go relay got the refusal", (r) => r.node === nameOf(p, middle));
  return { first: nameOf(p, first), middle: nameOf(p, middle), echo: nameOf(p, echo), mid };
}
