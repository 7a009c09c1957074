import { describe, expect, test } from "bun:test";
import type { Ingress } from "../../../src/k8s/client/index.ts";
import {
  ExposeConflictError,
  INGRESS_RECORD_ANNOTATION,
  WouldBeEmptyError,
  discloseOnIngress,
  exposeOnIngress,
  exposedPath,
  revertIngressDisclose,
  type IngressRule,
  type IngressTls,
} from "../../../src/k8s/resources/index.ts";

const SVC = "shop-manager-service";
const WHAT = "Ingress ns/ing";
const path = (p: string, port: number, service = SVC) => ({ path: p, pathType: "Prefix", backend: { service: { name: service, port: { number: port } } } });
const tls = (host: string): IngressTls => ({ hosts: [host], secretName: `${host}-tls` });
const own = { path: "own", rule: "own", tls: "own" };
const placeholder = { service: { name: SVC, port: { number: 80 } } };

function ing(rules: IngressRule[], tlsEntries: IngressTls[] = [], record?: unknown, defaultBackend: unknown = placeholder): Ingress {
  return {
    metadata: { name: "ing", ...(record ? { annotations: { [INGRESS_RECORD_ANNOTATION]: JSON.stringify(record) } } : {}) },
    spec: { ...(defaultBackend ? { defaultBackend } : {}), ...(rules.length ? { rules } : {}), ...(tlsEntries.length ? { tls: tlsEntries } : {}) },
  };
}
const recordOf = (i: Ingress | undefined) => JSON.parse(i?.metadata.annotations?.[INGRESS_RECORD_ANNOTATION] ?? "{}");
function thrown(f: () => unknown): Error & { code?: string } {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected a throw");
}

describe("exposeOnIngress", () => {
  test("adds a rule / → service:port and a TLS entry per new host, all recorded own", () => {
    const { next } = exposeOnIngress(ing([]), SVC, 8080, ["a.com", "b.com"], WHAT);
    expect(next?.spec?.rules).toEqual([
      { host: "a.com", http: { paths: [path("/", 8080)] } },
      { host: "b.com", http: { paths: [path("/", 8080)] } },
    ]);
    expect(next?.spec?.tls).toEqual([tls("a.com"), tls("b.com")]);
    expect(recordOf(next)).toEqual({ "8080": { "a.com": own, "b.com": own } });
  });

  test("changes nothing the second time", () => {
    const once = exposeOnIngress(ing([]), SVC, 8080, ["a.com"], WHAT).next!;
    expect(exposeOnIngress(once, SVC, 8080, ["a.com"], WHAT).next).toBeUndefined();
  });

  test("adds / to an existing rule that has only other paths, keeping them; the rule is recorded shared", () => {
    const { next } = exposeOnIngress(ing([{ host: "a.com", http: { paths: [path("/static", 9000, "cdn")] } }]), SVC, 8080, ["a.com"], WHAT);
    expect(next?.spec?.rules).toEqual([{ host: "a.com", http: { paths: [path("/static", 9000, "cdn"), path("/", 8080)] } }]);
    expect(recordOf(next)["8080"]["a.com"]).toEqual({ path: "own", rule: "shared", tls: "own" });
  });

  test("a host whose / routes elsewhere is a conflict naming the path, and nothing is computed", () => {
    const err = thrown(() =>
      exposeOnIngress(ing([{ host: "shop.com", http: { paths: [path("/", 80, "frontend"), path("/static", 80, "cdn")] } }]), SVC, 8080, ["shop.com"], WHAT),
    );
    expect(err).toBeInstanceOf(ExposeConflictError);
    expect((err as ExposeConflictError).conflicts).toEqual([
      {
        object: WHAT,
        entry: "host shop.com path /",
        current: "/ (Prefix) → frontend:80",
        owner: `another writer (not in tinyhost's ${INGRESS_RECORD_ANNOTATION} record)`,
        wanted: `/ (Prefix) → ${SVC}:8080`,
      },
    ]);
  });

  test("an Exact / or an ImplementationSpecific path without path also takes the slot", () => {
    for (const p of [
      { ...path("/", 80, "x"), pathType: "Exact" },
      { pathType: "ImplementationSpecific", backend: { service: { name: "x", port: { number: 80 } } } },
    ]) {
      expect(thrown(() => exposeOnIngress(ing([{ host: "a.com", http: { paths: [p] } }]), SVC, 8080, ["a.com"], WHAT))).toBeInstanceOf(ExposeConflictError);
    }
  });

  test("a second tinyhost port on the same host is a conflict naming the first port", () => {
    const first = exposeOnIngress(ing([]), SVC, 8080, ["a.com"], WHAT).next!;
    const err = thrown(() => exposeOnIngress(first, SVC, 8081, ["a.com"], WHAT)) as ExposeConflictError;
    expect(err.conflicts[0]?.owner).toBe("tinyhost, for port 8080");
    expect(err.message).toContain(
      `cannot expose port 8081, nothing was changed: ${WHAT} host a.com path / is / (Prefix) → ${SVC}:8080, owned by tinyhost, for port 8080`,
    );
  });

  test("an identical path and a covering TLS entry already there are adopted as shared", () => {
    const wildcard = { hosts: ["api.com", "a.com"], secretName: "wildcard-tls" };
    const { next } = exposeOnIngress(ing([{ host: "a.com", http: { paths: [path("/", 8080)] } }], [wildcard]), SVC, 8080, ["a.com"], WHAT);
    expect(next?.spec?.rules).toEqual([{ host: "a.com", http: { paths: [path("/", 8080)] } }]);
    expect(next?.spec?.tls).toEqual([wildcard]);
    expect(recordOf(next)).toEqual({ "8080": { "a.com": { path: "shared", rule: "shared", tls: "shared" } } });
  });

  test("keeps other rules and unknown fields, and adds http to a host's rule without one", () => {
    const { next } = exposeOnIngress(
      ing([{ host: "z.com", http: { paths: [path("/", 1)] }, extra: true }, { host: "static.com" }]),
      SVC,
      8080,
      ["static.com"],
      WHAT,
    );
    expect(next?.spec?.rules).toEqual([
      { host: "z.com", http: { paths: [path("/", 1)] }, extra: true },
      { host: "static.com", http: { paths: [path("/", 8080)] } },
    ]);
  });

  test("does not mutate its input", () => {
    const i = ing([{ host: "a.com", http: { paths: [path("/x", 7000)] } }]);
    const copy = structuredClone(i);
    exposeOnIngress(i, SVC, 8080, ["a.com", "b.com"], WHAT);
    expect(i).toEqual(copy);
  });

  test("exposedPath is Prefix / with a service backend port number", () => {
    expect(exposedPath(SVC, 8080)).toEqual(path("/", 8080));
  });
});

describe("discloseOnIngress", () => {
  const disclose = (i: Ingress, port = 8080) => discloseOnIngress(i, SVC, port, WHAT).next;

  test("expose then disclose gives back the original rules, TLS and annotations", () => {
    const start = ing([{ host: "z.com", http: { paths: [path("/", 1)] } }, { host: "static.com" }], [tls("z.com")]);
    const exposed = exposeOnIngress(start, SVC, 8080, ["a.com", "static.com"], WHAT).next!;
    expect(disclose(exposed)).toEqual(start);
  });

  test("removes only the port's own entries and keeps other ports' claims", () => {
    const a = exposeOnIngress(ing([]), SVC, 8080, ["a.com"], WHAT).next!;
    const ab = exposeOnIngress(a, SVC, 8081, ["b.com"], WHAT).next!;
    const after = disclose(ab)!;
    expect(after.spec?.rules).toEqual([{ host: "b.com", http: { paths: [path("/", 8081)] } }]);
    expect(after.spec?.tls).toEqual([tls("b.com")]);
    expect(recordOf(after)).toEqual({ "8081": { "b.com": own } });
  });

  test("keeps shared entries: an adopted path and a covering TLS entry stay", () => {
    const wildcard = { hosts: ["api.com", "a.com"], secretName: "wildcard-tls" };
    const start = ing(
      [
        { host: "api.com", http: { paths: [path("/v1", 8080)] } },
        { host: "a.com", http: { paths: [path("/", 8080)] } },
      ],
      [wildcard],
    );
    const exposed = exposeOnIngress(start, SVC, 8080, ["a.com"], WHAT).next!;
    expect(disclose(exposed)).toEqual(start);
  });

  test("another writer's path to the same service:port is kept", () => {
    const exposed = exposeOnIngress(ing([]), SVC, 8080, ["a.com"], WHAT).next!;
    const rules = exposed.spec!.rules as IngressRule[];
    const edited = { ...exposed, spec: { ...exposed.spec, rules: [...rules, { host: "o.com", http: { paths: [path("/", 8080)] } }] } };
    expect(disclose(edited)?.spec?.rules).toEqual([{ host: "o.com", http: { paths: [path("/", 8080)] } }]);
  });

  test("a rule tinyhost created keeps the paths others added to it, and the host keeps its TLS entry", () => {
    const exposed = exposeOnIngress(ing([]), SVC, 8080, ["a.com"], WHAT).next!;
    const edited = { ...exposed, spec: { ...exposed.spec, rules: [{ host: "a.com", http: { paths: [path("/", 8080), path("/api", 9000, "api")] } }] } };
    const after = disclose(edited)!;
    expect(after.spec?.rules).toEqual([{ host: "a.com", http: { paths: [path("/api", 9000, "api")] } }]);
    expect(after.spec?.tls).toEqual([tls("a.com")]);
  });

  test("an own TLS entry another writer added hosts to loses only its own host", () => {
    const exposed = exposeOnIngress(ing([]), SVC, 8080, ["a.com"], WHAT).next!;
    const edited = { ...exposed, spec: { ...exposed.spec, tls: [{ hosts: ["a.com", "k.com"], secretName: "a.com-tls" }] } };
    expect(disclose(edited)?.spec?.tls).toEqual([{ hosts: ["k.com"], secretName: "a.com-tls" }]);
  });

  test("a path someone re-pointed since is theirs and stays", () => {
    const exposed = exposeOnIngress(ing([]), SVC, 8080, ["a.com"], WHAT).next!;
    const edited = { ...exposed, spec: { ...exposed.spec, rules: [{ host: "a.com", http: { paths: [path("/", 80, "frontend")] } }] } };
    expect(disclose(edited)?.spec?.rules).toEqual([{ host: "a.com", http: { paths: [path("/", 80, "frontend")] } }]);
  });

  test("changes nothing for a port it has no record of", () => {
    expect(disclose(ing([{ host: "a.com", http: { paths: [path("/", 8080)] } }], [tls("a.com")]))).toBeUndefined();
  });

  test("refuses to leave an Ingress without rules and default backend", () => {
    const exposed = exposeOnIngress(ing([], [], undefined, null), SVC, 8080, ["a.com"], WHAT).next!;
    const err = thrown(() => disclose(exposed));
    expect(err).toBeInstanceOf(WouldBeEmptyError);
    expect(err.code).toBe("INGRESS_WOULD_HAVE_NO_RULES");
  });

  test("revertIngressDisclose exposes the recorded hosts again", () => {
    const exposed = exposeOnIngress(ing([]), SVC, 8080, ["a.com", "b.com"], WHAT).next!;
    const { next, previous } = discloseOnIngress(exposed, SVC, 8080, WHAT);
    expect(revertIngressDisclose(next!, SVC, 8080, previous, WHAT)).toEqual(exposed);
  });
});
