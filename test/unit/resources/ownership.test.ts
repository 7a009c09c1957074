import { describe, expect, test } from "bun:test";
import type { KubeObject } from "../../../src/k8s/client/index.ts";
import {
  INGRESS_RECORD_ANNOTATION,
  OwnershipRecordError,
  SERVICE_RECORD_ANNOTATION,
  readIngressRecord,
  readServiceRecord,
  servicePortManagers,
  withRecord,
} from "../../../src/k8s/resources/index.ts";

const withAnn = (key: string, value: string): KubeObject => ({ metadata: { name: "x", annotations: { [key]: value } } });
const obj = (annotations?: Record<string, string>): KubeObject => ({ metadata: { name: "s", ...(annotations ? { annotations } : {}) } });

describe("ownership records", () => {
  test("an absent annotation is an empty record", () => {
    expect(readServiceRecord(obj(), "Service ns/s")).toEqual({});
    expect(readIngressRecord(obj(), "Ingress ns/i")).toEqual({});
  });

  test("records are written as canonical JSON: ports in numeric order, hosts sorted", () => {
    const svc = withRecord(obj({ other: "kept" }), SERVICE_RECORD_ANNOTATION, { "9000": "own", "80": "shared" });
    expect(svc.metadata.annotations).toEqual({ other: "kept", [SERVICE_RECORD_ANNOTATION]: '{"80":"shared","9000":"own"}' });
    const ing = withRecord(obj(), INGRESS_RECORD_ANNOTATION, {
      "80": { "b.com": { tls: "own", rule: "own", path: "own" }, "a.com": { path: "shared", rule: "shared", tls: "shared" } },
    });
    expect(ing.metadata.annotations?.[INGRESS_RECORD_ANNOTATION]).toBe(
      '{"80":{"a.com":{"path":"shared","rule":"shared","tls":"shared"},"b.com":{"path":"own","rule":"own","tls":"own"}}}',
    );
  });

  test("an empty record removes the annotation (and an annotation map left empty)", () => {
    expect(withRecord(withAnn(SERVICE_RECORD_ANNOTATION, '{"80":"own"}'), SERVICE_RECORD_ANNOTATION, {}).metadata).toEqual({ name: "x" });
  });

  test("unreadable records are errors naming the object, the annotation and the problem", () => {
    const cases: [string, string, string][] = [
      [SERVICE_RECORD_ANNOTATION, "{oops", "not JSON"],
      [SERVICE_RECORD_ANNOTATION, "[1]", "not a JSON object"],
      [SERVICE_RECORD_ANNOTATION, '{"http":"own"}', 'key "http" is not a port number'],
      [SERVICE_RECORD_ANNOTATION, '{"80":"mine"}', 'port 80: "mine" is not "own" or "shared"'],
      [INGRESS_RECORD_ANNOTATION, '{"80":{"a.com":{"path":"own"}}}', 'port 80 host a.com: needs "path", "rule" and "tls"'],
    ];
    for (const [key, value, why] of cases) {
      const read = key === SERVICE_RECORD_ANNOTATION ? readServiceRecord : readIngressRecord;
      let err: unknown;
      try {
        read(withAnn(key, value), "Service ns/x");
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(OwnershipRecordError);
      expect((err as OwnershipRecordError).code).toBe("OWNERSHIP_RECORD_INVALID");
      expect((err as Error).message).toContain(`Service ns/x annotation ${key} is not a tinyhost ownership record: ${why}`);
    }
  });
});

describe("servicePortManagers", () => {
  test("names the managers that own the port/protocol entry, and only those", () => {
    const managedFields = [
      {
        manager: "helm",
        operation: "Update",
        fieldsV1: { "f:spec": { "f:ports": { 'k:{"port":80,"protocol":"TCP"}': {}, 'k:{"port":443,"protocol":"TCP"}': {} } } },
      },
      { manager: "kubectl-edit", operation: "Update", fieldsV1: { "f:spec": { "f:ports": { 'k:{"port":80,"protocol":"UDP"}': {} } } } },
      { manager: "tinyhost", operation: "Apply", fieldsV1: { "f:metadata": {} } },
    ];
    expect(servicePortManagers(managedFields, 80)).toEqual(["helm (Update)"]);
    expect(servicePortManagers(managedFields, 80, "UDP")).toEqual(["kubectl-edit (Update)"]);
    expect(servicePortManagers(managedFields, 9999)).toEqual([]);
    expect(servicePortManagers(undefined, 80)).toEqual([]);
  });
});
