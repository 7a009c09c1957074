import { describe, expect, test } from "bun:test";
import type { Service, ServicePort } from "../../../src/k8s/client/index.ts";
import {
  ExposeConflictError,
  SERVICE_RECORD_ANNOTATION,
  WouldBeEmptyError,
  discloseOnService,
  exposeOnService,
  revertServiceExpose,
} from "../../../src/k8s/resources/index.ts";

const WHAT = "Service ns/svc";
const grpc: ServicePort = { name: "grpc", port: 8483, targetPort: "grpc", protocol: "TCP" };
const ours = (n: number): ServicePort => ({ name: `port${n}`, port: n, targetPort: n, protocol: "TCP" });

function svc(ports: ServicePort[], record?: Record<string, string>, extra: Partial<Service["spec"]> = {}): Service {
  return {
    metadata: { name: "svc", ...(record ? { annotations: { [SERVICE_RECORD_ANNOTATION]: JSON.stringify(record) } } : {}) },
    spec: { type: "ClusterIP", ports, ...extra },
  };
}
const recordOf = (s: Service | undefined) => JSON.parse(s?.metadata.annotations?.[SERVICE_RECORD_ANNOTATION] ?? "{}");
function conflictOf(f: () => unknown): ExposeConflictError {
  try {
    f();
  } catch (e) {
    if (e instanceof ExposeConflictError) return e;
    throw e;
  }
  throw new Error("expected an ExposeConflictError");
}

describe("exposeOnService", () => {
  test("adds Go's entry {port<N>, N → N} and records it own", () => {
    const { next, change } = exposeOnService(svc([grpc]), 8080, WHAT);
    expect(next?.spec?.ports).toEqual([grpc, { name: "port8080", port: 8080, targetPort: 8080 }]);
    expect(recordOf(next)).toEqual({ "8080": "own" });
    expect(change).toEqual({ added: true, previous: undefined });
  });

  test("adopts an identical entry someone else wrote as shared, without touching the ports", () => {
    const { next, change } = exposeOnService(svc([grpc, ours(8080)]), 8080, WHAT);
    expect(next?.spec?.ports).toEqual([grpc, ours(8080)]);
    expect(recordOf(next)).toEqual({ "8080": "shared" });
    expect(change.added).toBe(false);
  });

  test("changes nothing when the port is exposed and recorded", () => {
    expect(exposeOnService(svc([grpc, ours(8080)], { "8080": "own" }), 8080, WHAT).next).toBeUndefined();
  });

  test("puts back an own entry someone deleted, keeping the claim", () => {
    const { next, change } = exposeOnService(svc([grpc], { "8080": "own" }), 8080, WHAT);
    expect(next?.spec?.ports).toEqual([grpc, { name: "port8080", port: 8080, targetPort: 8080 }]);
    expect(change).toEqual({ added: true, previous: "own" });
  });

  test("a same-number entry with another name and targetPort is a conflict naming it and its field managers", () => {
    const s = svc([{ name: "tcp-80", port: 80, targetPort: 8080, protocol: "TCP" }]);
    s.metadata.managedFields = [{ manager: "helm", operation: "Update", fieldsV1: { "f:spec": { "f:ports": { 'k:{"port":80,"protocol":"TCP"}': {} } } } }];
    const err = conflictOf(() => exposeOnService(s, 80, WHAT));
    expect(err.code).toBe("EXPOSE_CONFLICT");
    expect(err.conflicts).toEqual([
      {
        object: WHAT,
        entry: "port 80",
        current: "tcp-80 (80/TCP → 8080)",
        owner: "another writer (field managers: helm (Update))",
        wanted: "port80 (80/TCP → 80)",
      },
    ]);
    expect(err.message).toContain("Service ns/svc port 80 is tcp-80 (80/TCP → 8080), owned by another writer (field managers: helm (Update))");
  });

  test("the same number on UDP only is a conflict (no TCP entry is added beside it)", () => {
    const err = conflictOf(() => exposeOnService(svc([{ name: "mdns", port: 5353, protocol: "UDP", targetPort: 5353 }]), 5353, WHAT));
    expect(err.conflicts.map((c) => c.current)).toEqual(["mdns (5353/UDP → 5353)"]);
  });

  test("TCP and UDP entries with the number are both named", () => {
    const err = conflictOf(() =>
      exposeOnService(
        svc([
          { name: "http", port: 80, targetPort: 80, protocol: "TCP" },
          { name: "syslog", port: 80, targetPort: 514, protocol: "UDP" },
        ]),
        80,
        WHAT,
      ),
    );
    expect(err.conflicts.map((c) => c.current)).toEqual(["http (80/TCP → 80)", "syslog (80/UDP → 514)"]);
  });

  test("an identical entry beside a same-number UDP entry is still a conflict", () => {
    const err = conflictOf(() => exposeOnService(svc([ours(80), { name: "dns", port: 80, protocol: "UDP", targetPort: 80 }]), 80, WHAT));
    expect(err.conflicts.map((c) => c.current)).toEqual(["dns (80/UDP → 80)"]);
  });

  test("same name and number but another targetPort is a conflict", () => {
    const err = conflictOf(() => exposeOnService(svc([{ name: "port8080", port: 8080, targetPort: 9090 }]), 8080, WHAT));
    expect(err.conflicts[0]?.current).toBe("port8080 (8080/TCP → 9090)");
  });

  test("an entry with extra fields (appProtocol) is not exactly tinyhost's", () => {
    const err = conflictOf(() => exposeOnService(svc([{ ...ours(8080), appProtocol: "http" } as ServicePort]), 8080, WHAT));
    expect(err.conflicts[0]?.current).toBe("port8080 (8080/TCP → 8080) with appProtocol");
  });

  test("another port already named port<N> is a conflict on the name", () => {
    const err = conflictOf(() => exposeOnService(svc([{ name: "port8080", port: 9000, targetPort: 9000 }]), 8080, WHAT));
    expect(err.conflicts[0]?.entry).toBe("port name port8080");
  });

  test("an own entry changed by someone else is reported as changed after tinyhost exposed it", () => {
    const err = conflictOf(() => exposeOnService(svc([{ name: "port8080", port: 8080, targetPort: 9999 }], { "8080": "own" }), 8080, WHAT));
    expect(err.conflicts[0]?.owner).toBe("another writer, who changed it after tinyhost exposed port 8080");
  });

  test("a nodePort allocated by the apiserver still counts as tinyhost's entry", () => {
    expect(exposeOnService(svc([{ ...ours(8080), nodePort: 30080 }], { "8080": "own" }), 8080, WHAT).next).toBeUndefined();
  });

  test("does not mutate its input", () => {
    const s = svc([grpc]);
    const copy = structuredClone(s);
    exposeOnService(s, 8080, WHAT);
    expect(s).toEqual(copy);
  });
});

describe("discloseOnService", () => {
  test("removes an own entry and its claim, keeping other ports and claims", () => {
    const { next } = discloseOnService(svc([grpc, ours(8080), ours(8081)], { "8080": "own", "8081": "own" }), 8080, WHAT);
    expect(next?.spec?.ports).toEqual([grpc, ours(8081)]);
    expect(recordOf(next)).toEqual({ "8081": "own" });
  });

  test("keeps a shared entry and drops only the claim; the annotation goes with the last claim", () => {
    const { next } = discloseOnService(svc([grpc, ours(8080)], { "8080": "shared" }), 8080, WHAT);
    expect(next?.spec?.ports).toEqual([grpc, ours(8080)]);
    expect(next?.metadata.annotations).toBeUndefined();
  });

  test("changes nothing for a port it has no record of, whatever the Service has", () => {
    expect(
      discloseOnService(
        svc([
          { name: "tcp-80", port: 80, targetPort: 8080 },
          { name: "u", port: 80, protocol: "UDP" },
        ]),
        80,
        WHAT,
      ).next,
    ).toBeUndefined();
  });

  test("keeps an own entry someone changed since (it is theirs now)", () => {
    const changed = { name: "port8080", port: 8080, targetPort: 9999 };
    expect(discloseOnService(svc([grpc, changed], { "8080": "own" }), 8080, WHAT).next?.spec?.ports).toEqual([grpc, changed]);
  });

  test("refuses to leave a ClusterIP Service without ports", () => {
    let err: unknown;
    try {
      discloseOnService(svc([ours(8080)], { "8080": "own" }), 8080, WHAT);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(WouldBeEmptyError);
    expect((err as WouldBeEmptyError).code).toBe("SERVICE_WOULD_HAVE_NO_PORTS");
    expect((err as Error).message).toContain("Service ns/svc port8080 is its only port");
  });

  test("a headless Service may be left without ports", () => {
    expect(discloseOnService(svc([ours(8080)], { "8080": "own" }, { clusterIP: "None" }), 8080, WHAT).next?.spec?.ports).toEqual([]);
  });
});

describe("revertServiceExpose", () => {
  test("undoes an add: entry and claim gone", () => {
    const before = svc([grpc]);
    const { next, change } = exposeOnService(before, 8080, WHAT);
    const undone = revertServiceExpose(next!, 8080, change, WHAT);
    expect(undone?.spec?.ports).toEqual([grpc]);
    expect(undone?.metadata.annotations).toBeUndefined();
  });

  test("undoes an adoption: the shared entry stays, the claim goes", () => {
    const { next, change } = exposeOnService(svc([grpc, ours(8080)]), 8080, WHAT);
    const undone = revertServiceExpose(next!, 8080, change, WHAT);
    expect(undone?.spec?.ports).toEqual([grpc, ours(8080)]);
    expect(undone?.metadata.annotations).toBeUndefined();
  });

  test("keeps ports other writers added since", () => {
    const { next, change } = exposeOnService(svc([grpc]), 8080, WHAT);
    const later = { ...next!, spec: { ...next!.spec, ports: [...(next!.spec?.ports ?? []), { name: "m", port: 9090 }] } };
    expect(revertServiceExpose(later, 8080, change, WHAT)?.spec?.ports).toEqual([grpc, { name: "m", port: 9090 }]);
  });
});
