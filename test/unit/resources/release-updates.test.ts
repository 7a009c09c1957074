import { describe, expect, test } from "bun:test";
import type { Ingress, Service, ServicePort } from "../../../src/k8s/client/index.ts";
import { INGRESS_RECORD_ANNOTATION, SERVICE_RECORD_ANNOTATION, undoEdit, type ReleaseUpdate } from "../../../src/k8s/resources/index.ts";

const grpc = { name: "grpc", port: 8483, protocol: "TCP" as const };
const p8080 = { name: "port8080", port: 8080, targetPort: 8080, protocol: "TCP" as const };
const svc = (ports: ServicePort[], record?: string, extra: Record<string, string> = {}): Service => ({
  metadata: { name: "s", annotations: { ...extra, ...(record ? { [SERVICE_RECORD_ANNOTATION]: record } : {}) } },
  spec: { ports },
});

describe("undoEdit", () => {
  const done: ReleaseUpdate<Service> = {
    changed: true,
    before: svc([grpc], undefined, { lock: "a" }),
    after: svc([grpc, p8080], '{"8080":"own"}', { lock: "a" }),
  };

  test("puts the ports and the record back exactly when the object is still as written, keeping other annotations", () => {
    const current = svc([grpc, p8080], '{"8080":"own"}', { lock: "b" });
    const targeted = () => {
      throw new Error("not expected");
    };
    expect(undoEdit("Service", done, targeted)(current)).toEqual(svc([grpc], undefined, { lock: "b" }));
  });

  test("falls back to the targeted undo when someone changed the object since", () => {
    const current = svc([grpc, p8080, { name: "m", port: 9090 } as never], '{"8080":"own"}');
    const marker = svc([], undefined, { targeted: "yes" });
    expect(undoEdit("Service", done, () => marker)(current)).toBe(marker);
  });

  test("restores an Ingress's rules and TLS in their original order, dropping lists that were absent", () => {
    const before: Ingress = { metadata: { name: "i" }, spec: { rules: [{ host: "z.com" }] } };
    const after: Ingress = {
      metadata: { name: "i", annotations: { [INGRESS_RECORD_ANNOTATION]: "{}" } },
      spec: { rules: [{ host: "a.com" }, { host: "z.com" }], tls: [{ hosts: ["a.com"] }] },
    };
    expect(undoEdit("Ingress", { changed: true, before, after }, () => undefined)(after)).toEqual(before);
  });
});
