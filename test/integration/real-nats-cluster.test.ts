/**
 * The broker as users outgrow one server (issue 31 item 6): `tinyhost provision --nats-replicas 3`
 * on the real node makes a 3-server NATS cluster (a StatefulSet routed through its headless
 * Service) and the module keeps both JetStream streams and the `TINY_EXEC` ledger at 3 replicas
 * (`TINYHOST_NATS_REPLICAS`). Under a steady durable load (test/support/real-fault-bed.ts) the
 * server leading `module-edges` is killed (kill -9 of its container's process; the kubelet restarts
 * it): another server takes the lead, no hop is lost or terminated, and everything is OK again within
 * a generous deadline. Printed: the case's figures and the streams' leaders before and after.
 *
 * Its own cluster (startFaultCluster): three broker servers and two module pods under load are
 * more than the run's shared node should carry beside other files' pods.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tmpdir } from "node:os";
import type { RealCluster } from "../support/real-cluster.ts";
import { containerProcess } from "../support/real-node/container-process.ts";
import { openFaultBed, startFaultCluster, type FaultBed } from "../support/real-fault-bed.ts";
import { EDGE_STREAM, EXEC_BUCKET, SYSMSG_STREAM } from "../../src/transport/nats/names.ts";

const START_TIMEOUT_MS = 60 * 60_000;
const RELEASE = "natsha";

let cluster: RealCluster;
let bed: FaultBed;

beforeAll(async () => {
  cluster = await startFaultCluster();
  bed = await openFaultBed({
    cluster,
    release: RELEASE,
    natsReplicas: 3,
    tag: "real-nats-cluster",
    buildLog: join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "real-nats-cluster-build.log"),
  });
}, START_TIMEOUT_MS);

afterAll(async () => {
  await bed?.close();
  await cluster?.stop();
}, 180_000);

/** Replicas and leader of each of the module's streams and of the ledger's. */
async function streams(): Promise<Record<string, { replicas: number; leader: string; current: number }>> {
  const out: Record<string, { replicas: number; leader: string; current: number }> = {};
  for (const name of [EDGE_STREAM, SYSMSG_STREAM, `KV_${EXEC_BUCKET}`]) {
    const si = await bed.jsm.streams.info(name);
    out[name] = {
      replicas: si.config.num_replicas,
      leader: si.cluster?.leader ?? "",
      current: (si.cluster?.replicas ?? []).filter((r) => r.current).length,
    };
  }
  return out;
}

describe("a 3-server NATS cluster (provision --nats-replicas 3)", () => {
  test("the streams and the ledger are at 3 replicas, led by a server of the StatefulSet", async () => {
    const s = await streams();
    expect(Object.values(s).map((x) => x.replicas)).toEqual([3, 3, 3]);
    const servers = (await bed.natsPods()).map((p) => p.metadata.name).sort();
    expect(servers).toEqual(["tinysystems-nats-0", "tinysystems-nats-1", "tinysystems-nats-2"]);
    for (const x of Object.values(s)) expect(servers).toContain(x.leader);
    console.error(`[real-nats-cluster] streams: ${JSON.stringify(s)}`);
  }, 60_000);

  test("kill -9 of the server leading module-edges under durable load: another server leads, nothing lost", async () => {
    const before = await streams();
    const leaderName = before[EDGE_STREAM]!.leader;
    const leader = (await bed.natsPods()).find((p) => p.metadata.name === leaderName)!;
    const container = leader.status.containerStatuses!.find((c) => c.name === "nats")!;
    let newLeader = "";
    const r = await bed.underLoad(
      "kill -9 stream leader (3-server NATS)",
      async () => {
        const proc = containerProcess(cluster.node.slot, container.containerID!.replace(/^containerd:\/\//, ""));
        process.kill(proc.pid, "SIGKILL");
        return `SIGKILL to nats-server pid ${proc.pid} of ${leaderName} (led ${Object.entries(before)
          .filter(([, x]) => x.leader === leaderName)
          .map(([n]) => n)
          .join(", ")})`;
      },
      async () => {
        newLeader = (await bed.jsm.streams.info(EDGE_STREAM)).cluster?.leader ?? "";
        return newLeader !== "" && newLeader !== leaderName;
      },
    );
    const after = await streams();
    console.error(`[real-nats-cluster] leaders before ${JSON.stringify(before)}; after ${JSON.stringify(after)}`);
    expect(newLeader).not.toBe(leaderName);
    expect({ lost: r.counts.lost, terminated: r.terminated }).toEqual({ lost: 0, terminated: 0 });
    expect(Object.values(after).map((x) => x.replicas)).toEqual([3, 3, 3]);
  }, 600_000);
});
