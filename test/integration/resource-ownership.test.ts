/**
 * exposePort/disclosePort own exactly what they wrote (issue 14), against the real kube-apiserver:
 * each case of the issue with the complete before/after of both objects, adoption of identical
 * entries, restart, replicas racing with another writer, failures between the two writes, the
 * expose lock, and the permissions the resource manager needs.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { getControlPlane, type ControlPlane } from "../support/control-plane.ts";
import {
  KubeApiError,
  KubeClient,
  ingresses,
  retryOnConflict,
  roleBindings,
  roles,
  serviceAccounts,
  services,
  type Ingress,
  type KubeObject,
  type PolicyRule,
  type ResourceDescriptor,
  type WriteOptions,
} from "../../src/k8s/client/index.ts";
import {
  EXPOSE_LOCK_ANNOTATION,
  ExposeConflictError,
  INGRESS_RECORD_ANNOTATION,
  PartialWriteError,
  SERVICE_RECORD_ANNOTATION,
  WouldBeEmptyError,
  type IngressRule,
  type IngressTls,
} from "../../src/k8s/resources/index.ts";

/** Another writer's compare-and-swap edit of an object (the one conflict-retry loop, src/k8s/client/conflict.ts). */
function otherWriterEdit<T extends KubeObject>(op: { what: string; read: () => Promise<T>; modify: (current: T) => T; write: (next: T) => Promise<T> }) {
  return retryOnConflict<T>({ what: op.what, read: op.read, write: (current) => op.write(op.modify(current)) });
}
import { INGRESS_HOSTNAME_SUFFIX_ANNOTATION } from "../../src/core/api/index.ts";
import {
  DEFAULT_BACKEND,
  GRPC_PORT,
  INGRESS,
  OTHER_WRITER,
  SERVICE,
  SUFFIX,
  managerFor,
  ownClient,
  pathTo,
  rejection,
  releaseIn,
  releaseState,
  versionsOf,
  type ReleaseOptions,
  type ReleaseState,
} from "./resource-manager-release.ts";
import { until as poll } from "../support/until.ts";

let cp: ControlPlane;
let kube: KubeClient;

beforeAll(async () => {
  cp = await getControlPlane();
  kube = await ownClient(cp);
}, 900_000);

const release = (prefix: string, opts: ReleaseOptions = {}) => releaseIn(cp, kube, prefix, opts);
const state = (ns: string) => releaseState(kube, ns);
const SUFFIX_ANN = { [INGRESS_HOSTNAME_SUFFIX_ANNOTATION]: SUFFIX };
/** Service port `port<N>` as the apiserver stores what tinyhost writes. */
const ourPort = (n: number) => ({ name: `port${n}`, port: n, targetPort: n, protocol: "TCP" });
const rule = (host: string, ...paths: ReturnType<typeof pathTo>[]): IngressRule => ({ host, http: { paths } });
const tlsFor = (host: string): IngressTls => ({ hosts: [host], secretName: `${host}-tls` });
const own = { path: "own", rule: "own", tls: "own" };

/** The expected whole state, from its parts. */
function expected(parts: {
  ports: unknown[];
  serviceRecord?: Record<string, string>;
  rules?: IngressRule[];
  tls?: IngressTls[];
  ingressRecord?: unknown;
}): ReleaseState {
  return {
    service: {
      annotations: parts.serviceRecord ? { [SERVICE_RECORD_ANNOTATION]: JSON.stringify(parts.serviceRecord) } : {},
      ports: parts.ports as ReleaseState["service"]["ports"],
    },
    ingress: {
      annotations: { ...SUFFIX_ANN, ...(parts.ingressRecord ? { [INGRESS_RECORD_ANNOTATION]: JSON.stringify(parts.ingressRecord) } : {}) },
      rules: parts.rules ?? [],
      tls: parts.tls ?? [],
      defaultBackend: DEFAULT_BACKEND,
    },
  };
}

async function conflictOf(p: Promise<unknown>): Promise<ExposeConflictError> {
  const err = await rejection(p);
  expect(err).toBeInstanceOf(ExposeConflictError);
  return err as ExposeConflictError;
}

/** A client whose writes matching `fail` are answered with an injected 503 before reaching the apiserver. */
class FaultyClient extends KubeClient {
  failed: string[] = [];
  constructor(
    base: KubeClient,
    private readonly fail: (kind: string, object: KubeObject) => boolean,
  ) {
    super(base.connection);
  }
  override async update<T extends KubeObject>(res: ResourceDescriptor<T>, object: T, options: WriteOptions = {}): Promise<T> {
    if (this.fail(res.kind, object)) {
      this.failed.push(res.kind);
      throw new KubeApiError({ verb: "PUT", path: `/${res.kind}/${object.metadata.name}`, status: 503, text: "injected failure" });
    }
    return super.update(res, object, options);
  }
}

/** A client whose updates of one kind (optionally: matching `only`) wait `ms` first, to hold an operation between its two writes. */
class SlowClient extends KubeClient {
  delayed = 0;
  constructor(
    base: KubeClient,
    private readonly kind: string,
    private readonly ms: number,
    private readonly only: (object: KubeObject) => boolean = () => true,
  ) {
    super(base.connection);
  }
  override async update<T extends KubeObject>(res: ResourceDescriptor<T>, object: T, options: WriteOptions = {}): Promise<T> {
    if (res.kind === this.kind && this.only(object)) {
      this.delayed++;
      await Bun.sleep(this.ms);
    }
    return super.update(res, object, options);
  }
}

/** This file's timeout and poll interval. */
const until = (check: () => Promise<boolean>) => poll("the condition", check, 20_000);

/** A client authenticated as a new ServiceAccount bound to a Role with `rules` (real RBAC). */
async function serviceAccountClient(ns: string, name: string, rules: PolicyRule[]): Promise<KubeClient> {
  await kube.create(serviceAccounts, { metadata: { name } }, { namespace: ns });
  await kube.create(roles, { metadata: { name }, rules }, { namespace: ns });
  await kube.create(
    roleBindings,
    { metadata: { name }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name }, subjects: [{ kind: "ServiceAccount", name, namespace: ns }] },
    { namespace: ns },
  );
  const tr = await kube.request<{ status: { token: string } }>({
    method: "POST",
    path: `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`,
    body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 3600 } },
  });
  const token = tr.status.token;
  const client = new KubeClient({ ...kube.connection, credentials: { current: async () => ({ token }), invalidate: () => false } });
  // RBAC is served from an informer cache: wait until the binding is in effect.
  for (let i = 0; ; i++) {
    try {
      await client.listAll(services, { namespace: ns });
      return client;
    } catch (e) {
      if (i > 100 || !(e instanceof KubeApiError) || e.status !== 403) throw e;
      await Bun.sleep(100);
    }
  }
}

describe("the issue's cases", () => {
  test("a foreign tcp-80 (80/TCP → 8080): exposePort(80) fails naming it and its owner; disclosePort(80) then removes nothing", async () => {
    const foreignRule = rule("api.example.com", pathTo("/v1", 80));
    const wildcard = { hosts: ["api.example.com", `app80-${SUFFIX}`], secretName: "wildcard-tls" };
    const ns = await release("own-tcp80", {
      ports: [GRPC_PORT, { name: "tcp-80", port: 80, targetPort: 8080, protocol: "TCP" }],
      rules: [foreignRule],
      tls: [wildcard],
    });
    const before = expected({ ports: [GRPC_PORT, { name: "tcp-80", port: 80, targetPort: 8080, protocol: "TCP" }], rules: [foreignRule], tls: [wildcard] });
    expect(await state(ns)).toEqual(before);
    const m = managerFor(kube, ns);

    const err = await conflictOf(m.exposePort({ autoHostName: "app80", port: 80 }));
    expect(err.code).toBe("EXPOSE_CONFLICT");
    expect(err.message).toBe(
      `cannot expose port 80, nothing was changed: Service ${ns}/${SERVICE} port 80 is tcp-80 (80/TCP → 8080), owned by another writer (field managers: ${OTHER_WRITER} (Update)); exposePort(80) would write port80 (80/TCP → 80)`,
    );
    expect(await state(ns)).toEqual(before);

    const versions = await versionsOf(kube, ns);
    await m.disclosePort(80);
    expect(await state(ns)).toEqual(before);
    expect(await versionsOf(kube, ns)).toEqual(versions);
  });

  test("tcp-80 as the only Service port: exposePort(80) fails, and disclosePort(80) changes nothing instead of a 422", async () => {
    const tcp80 = { name: "tcp-80", port: 80, targetPort: 8080, protocol: "TCP" as const };
    const ns = await release("own-only80", { ports: [tcp80] });
    const before = expected({ ports: [tcp80] });
    const m = managerFor(kube, ns);
    await conflictOf(m.exposePort({ hostnames: ["app80.example.com"], port: 80 }));
    expect(await state(ns)).toEqual(before);
    await m.disclosePort(80);
    expect(await state(ns)).toEqual(before);
  });

  test("disclosing tinyhost's port when it is the Service's last port fails with SERVICE_WOULD_HAVE_NO_PORTS and changes neither object", async () => {
    const ns = await release("own-lastport");
    const m = managerFor(kube, ns);
    await m.exposePort({ hostnames: ["a.example.com"], port: 8080 });
    // Someone else removes the chart's grpc port: port8080 is now the only one.
    await otherWriterEdit({
      what: "test",
      read: () => kube.get(services, SERVICE, ns),
      modify: (s) => ({ ...s, spec: { ...s.spec, ports: (s.spec?.ports ?? []).filter((p) => p.name !== "grpc") } }),
      write: (s) => kube.update(services, s, { fieldManager: OTHER_WRITER }),
    });
    const before = await state(ns);
    expect(before).toEqual(
      expected({
        ports: [ourPort(8080)],
        serviceRecord: { "8080": "own" },
        rules: [rule("a.example.com", pathTo("/", 8080))],
        tls: [tlsFor("a.example.com")],
        ingressRecord: { "8080": { "a.example.com": own } },
      }),
    );
    const err = await rejection(m.disclosePort(8080));
    expect(err).toBeInstanceOf(WouldBeEmptyError);
    expect((err as WouldBeEmptyError).code).toBe("SERVICE_WOULD_HAVE_NO_PORTS");
    expect(err.message).toContain(`Service ${ns}/${SERVICE} port8080 is its only port`);
    expect(await state(ns)).toEqual(before);
  });

  test("80/TCP and 80/UDP of another writer: exposePort(80) fails naming both, disclosePort(80) removes neither", async () => {
    const ports = [
      GRPC_PORT,
      { name: "http", port: 80, targetPort: 80, protocol: "TCP" as const },
      { name: "syslog", port: 80, targetPort: 514, protocol: "UDP" as const },
    ];
    const ns = await release("own-tcpudp", { ports });
    const before = expected({ ports });
    const m = managerFor(kube, ns);
    const err = await conflictOf(m.exposePort({ hostnames: ["a.example.com"], port: 80 }));
    expect(err.conflicts.map((c) => `${c.entry}: ${c.current}`)).toEqual(["port 80: http (80/TCP → 80)", "port 80: syslog (80/UDP → 514)"]);
    expect(await state(ns)).toEqual(before);
    await m.disclosePort(80);
    expect(await state(ns)).toEqual(before);
  });

  test("only mdns 5353/UDP: exposePort(5353) fails; no TCP port and no Ingress rule are written", async () => {
    const ports = [{ name: "mdns", port: 5353, targetPort: 5353, protocol: "UDP" as const }];
    const ns = await release("own-mdns", { ports });
    const before = expected({ ports });
    const err = await conflictOf(managerFor(kube, ns).exposePort({ hostnames: ["mdns.example.com"], port: 5353 }));
    expect(err.conflicts[0]?.current).toBe("mdns (5353/UDP → 5353)");
    expect(await state(ns)).toEqual(before);
  });

  test("http 8080 → 9090 of another writer: exposePort(8080) fails instead of routing to 9090; disclosePort(8080) keeps it", async () => {
    const ports = [GRPC_PORT, { name: "http", port: 8080, targetPort: 9090, protocol: "TCP" as const }];
    const ns = await release("own-9090", { ports });
    const before = expected({ ports });
    const m = managerFor(kube, ns);
    const err = await conflictOf(m.exposePort({ hostnames: ["a.example.com"], port: 8080 }));
    expect(err.conflicts[0]?.current).toBe("http (8080/TCP → 9090)");
    expect(await state(ns)).toEqual(before);
    await m.disclosePort(8080);
    expect(await state(ns)).toEqual(before);
  });

  test("two tinyhost ports on one hostname: the second fails naming the first, which keeps its route, rule and TLS entry", async () => {
    const ns = await release("own-samehost");
    const m = managerFor(kube, ns);
    await m.exposePort({ hostnames: ["shared.example.com"], port: 8080 });
    const first = expected({
      ports: [GRPC_PORT, ourPort(8080)],
      serviceRecord: { "8080": "own" },
      rules: [rule("shared.example.com", pathTo("/", 8080))],
      tls: [tlsFor("shared.example.com")],
      ingressRecord: { "8080": { "shared.example.com": own } },
    });
    expect(await state(ns)).toEqual(first);

    const err = await conflictOf(m.exposePort({ hostnames: ["shared.example.com"], port: 8081 }));
    expect(err.conflicts).toEqual([
      {
        object: `Ingress ${ns}/${INGRESS}`,
        entry: "host shared.example.com path /",
        current: `/ (Prefix) → ${SERVICE}:8080`,
        owner: "tinyhost, for port 8080",
        wanted: `/ (Prefix) → ${SERVICE}:8081`,
      },
    ]);
    expect(await state(ns)).toEqual(first); // no port8081 either: the Ingress is checked before the Service is written

    await m.disclosePort(8081);
    expect(await state(ns)).toEqual(first);
    await m.disclosePort(8080);
    expect(await state(ns)).toEqual(expected({ ports: [GRPC_PORT] }));
  });

  test("an existing shop.example.com rule (/ → frontend, /static → cdn): exposePort fails; the frontend route survives disclosePort", async () => {
    const shop = rule("shop.example.com", pathTo("/", 80, "frontend"), pathTo("/static", 80, "cdn"));
    const ns = await release("own-shop", { rules: [shop], tls: [tlsFor("shop.example.com")] });
    const before = expected({ ports: [GRPC_PORT], rules: [shop], tls: [tlsFor("shop.example.com")] });
    const m = managerFor(kube, ns);
    const err = await conflictOf(m.exposePort({ hostnames: ["shop.example.com"], port: 8080 }));
    expect(err.message).toContain(
      `Ingress ${ns}/${INGRESS} host shop.example.com path / is / (Prefix) → frontend:80, owned by another writer (not in tinyhost's ${INGRESS_RECORD_ANNOTATION} record)`,
    );
    expect(await state(ns)).toEqual(before);
    await m.disclosePort(8080);
    expect(await state(ns)).toEqual(before);
  });
});

describe("ownership", () => {
  test("entries identical to tinyhost's are adopted as shared and survive disclosePort; only what was added goes", async () => {
    const shop = rule("shop.example.com", pathTo("/", 8080));
    const wildcard = { hosts: ["shop.example.com", "api.example.com"], secretName: "wildcard-tls" };
    const ns = await release("own-adopt", { ports: [GRPC_PORT, ourPort(8080) as never], rules: [shop], tls: [wildcard] });
    const before = expected({ ports: [GRPC_PORT, ourPort(8080)], rules: [shop], tls: [wildcard] });
    const m = managerFor(kube, ns);
    expect(await m.exposePort({ hostnames: ["shop.example.com", "new.example.com"], port: 8080 })).toEqual(["shop.example.com", "new.example.com"]);
    expect(await state(ns)).toEqual(
      expected({
        ports: [GRPC_PORT, ourPort(8080)],
        serviceRecord: { "8080": "shared" },
        rules: [shop, rule("new.example.com", pathTo("/", 8080))],
        tls: [wildcard, tlsFor("new.example.com")],
        ingressRecord: { "8080": { "new.example.com": own, "shop.example.com": { path: "shared", rule: "shared", tls: "shared" } } },
      }),
    );
    await m.disclosePort(8080);
    expect(await state(ns)).toEqual(before);
  });

  test("a TLS entry tinyhost added loses only tinyhost's host when another writer added hosts to it", async () => {
    const ns = await release("own-tlsshare");
    const m = managerFor(kube, ns);
    await m.exposePort({ hostnames: ["a.example.com"], port: 8080 });
    await otherWriterEdit<Ingress>({
      what: "test",
      read: () => kube.get(ingresses, INGRESS, ns),
      modify: (i) => ({
        ...i,
        spec: {
          ...i.spec,
          rules: [...(i.spec?.rules ?? []), rule("k.example.com", pathTo("/", 80, "k")) as Record<string, unknown>],
          tls: [{ hosts: ["a.example.com", "k.example.com"], secretName: "a.example.com-tls" }],
        },
      }),
      write: (i) => kube.update(ingresses, i, { fieldManager: OTHER_WRITER }),
    });
    await m.disclosePort(8080);
    expect(await state(ns)).toEqual(
      expected({
        ports: [GRPC_PORT],
        rules: [rule("k.example.com", pathTo("/", 80, "k"))],
        tls: [{ hosts: ["k.example.com"], secretName: "a.example.com-tls" }],
      }),
    );
  });

  test("a host rule without http gets tinyhost's path, and after disclosePort is back as it was", async () => {
    const ns = await release("own-nohttp", { rules: [{ host: "static.example.com" }] });
    const before = await state(ns);
    const m = managerFor(kube, ns);
    await m.exposePort({ hostnames: ["static.example.com"], port: 8080 });
    expect((await state(ns)).ingress.rules).toEqual([rule("static.example.com", pathTo("/", 8080))]);
    await m.disclosePort(8080);
    expect(await state(ns)).toEqual(before);
  });

  test("expose, restart the manager (new instance, new client), disclose: exactly what was added is removed", async () => {
    const foreign = rule("other.example.com", pathTo("/", 9000, "other"));
    const ns = await release("own-restart", { rules: [foreign], tls: [tlsFor("other.example.com")] });
    const before = await state(ns);
    await managerFor(await ownClient(cp), ns).exposePort({ hostnames: ["a.example.com", "b.example.com"], autoHostName: "auto", port: 8080 });
    expect(await state(ns)).toEqual(
      expected({
        ports: [GRPC_PORT, ourPort(8080)],
        serviceRecord: { "8080": "own" },
        rules: [foreign, rule("a.example.com", pathTo("/", 8080)), rule("b.example.com", pathTo("/", 8080)), rule(`auto-${SUFFIX}`, pathTo("/", 8080))],
        tls: [tlsFor("other.example.com"), tlsFor("a.example.com"), tlsFor("b.example.com"), tlsFor(`auto-${SUFFIX}`)],
        ingressRecord: { "8080": { "a.example.com": own, "auto-x.example.com": own, "b.example.com": own } },
      }),
    );
    await managerFor(await ownClient(cp), ns).disclosePort(8080);
    expect(await state(ns)).toEqual(before);
  });
});

describe("concurrency", () => {
  test("two replicas exposing 12 ports and disclosing 6 while a third writer edits the Ingress: nothing lost, no foreign entry touched", async () => {
    const ns = await release("own-replicas");
    const [ca, cb, cc] = await Promise.all([ownClient(cp), ownClient(cp), ownClient(cp)]);
    const a = managerFor(ca, ns);
    const b = managerFor(cb, ns);
    const host = (port: number) => `p${port}.example.com`;
    /** The other writer: adds rule f<i> and its host to one shared TLS entry, and edits f0's rule. */
    const otherWriter = async (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        await otherWriterEdit<Ingress>({
          what: "other writer",
          read: () => cc.get(ingresses, INGRESS, ns),
          modify: (ing) => {
            const rules = [...((ing.spec?.rules ?? []) as IngressRule[])];
            rules.push(rule(`f${i}.example.com`, pathTo("/", 80, "foreign")));
            const f0 = rules.findIndex((r) => r.host === "f0.example.com");
            if (i > 0 && f0 >= 0) rules[f0] = rule("f0.example.com", pathTo("/", 80, "foreign"), pathTo(`/edit${i}`, 81, "foreign"));
            const tls = [...(ing.spec?.tls ?? [])];
            const shared = tls.findIndex((t) => t.secretName === "foreign-tls");
            if (shared >= 0) tls[shared] = { ...tls[shared], hosts: [...(tls[shared]!.hosts ?? []), `f${i}.example.com`] };
            else tls.push({ hosts: [`f${i}.example.com`], secretName: "foreign-tls" });
            return { ...ing, spec: { ...ing.spec, rules: rules as Record<string, unknown>[], tls } };
          },
          write: (ing) => cc.update(ingresses, ing, { fieldManager: OTHER_WRITER }),
        });
      }
    };
    const portsA = [7000, 7001, 7002, 7003, 7004, 7005];
    const portsB = [7100, 7101, 7102, 7103, 7104, 7105];
    await Promise.all([
      ...portsA.map((port) => a.exposePort({ hostnames: [host(port)], port })),
      ...portsB.map((port) => b.exposePort({ hostnames: [host(port)], port })),
      otherWriter(0, 5),
    ]);
    const mid = await state(ns);
    expect(mid.service.ports.map((p) => p.port).sort()).toEqual([...portsA, ...portsB, 8483]);
    expect(Object.keys(JSON.parse(mid.service.annotations[SERVICE_RECORD_ANNOTATION]!))).toHaveLength(12);
    expect(mid.ingress.rules.map((r) => r.host).sort()).toEqual(
      [...[...portsA, ...portsB].map(host), "f0.example.com", "f1.example.com", "f2.example.com", "f3.example.com", "f4.example.com"].sort(),
    );

    await Promise.all([...[7000, 7001, 7002].map((p) => a.disclosePort(p)), ...[7100, 7101, 7102].map((p) => b.disclosePort(p)), otherWriter(5, 10)]);

    const kept = [7003, 7004, 7005, 7103, 7104, 7105];
    const end = await state(ns);
    const byHost = (x: IngressRule, y: IngressRule) => ((x.host ?? "") < (y.host ?? "") ? -1 : 1);
    const foreignRules = Array.from({ length: 10 }, (_, i) =>
      i === 0 ? rule("f0.example.com", pathTo("/", 80, "foreign"), pathTo("/edit9", 81, "foreign")) : rule(`f${i}.example.com`, pathTo("/", 80, "foreign")),
    );
    expect(end.service.ports.sort((x, y) => x.port - y.port)).toEqual([...kept.map(ourPort), GRPC_PORT] as never);
    expect(JSON.parse(end.service.annotations[SERVICE_RECORD_ANNOTATION]!)).toEqual(Object.fromEntries(kept.map((p) => [String(p), "own"])));
    expect(end.service.annotations[EXPOSE_LOCK_ANNOTATION]).toBeUndefined();
    expect([...end.ingress.rules].sort(byHost)).toEqual([...foreignRules, ...kept.map((p) => rule(host(p), pathTo("/", p)))].sort(byHost));
    const foreignTls = end.ingress.tls.filter((t) => t.secretName === "foreign-tls");
    expect(foreignTls).toEqual([{ hosts: Array.from({ length: 10 }, (_, i) => `f${i}.example.com`), secretName: "foreign-tls" }]);
    expect(
      end.ingress.tls
        .filter((t) => t.secretName !== "foreign-tls")
        .map((t) => t.hosts?.[0])
        .sort(),
    ).toEqual(kept.map(host).sort());
    expect(JSON.parse(end.ingress.annotations[INGRESS_RECORD_ANNOTATION]!)).toEqual(Object.fromEntries(kept.map((p) => [String(p), { [host(p)]: own }])));
  }, 120_000);

  test("a disclosePort that arrives while another replica's exposePort is between its two writes waits its turn: both objects agree", async () => {
    const ns = await release("own-race-expose");
    const slow = new SlowClient(await ownClient(cp), "Ingress", 500);
    const exposing = managerFor(slow, ns).exposePort({ hostnames: ["race.example.com"], port: 7000 });
    await until(async () => (await state(ns)).service.annotations[SERVICE_RECORD_ANNOTATION] !== undefined); // Service written, Ingress pending
    await managerFor(await ownClient(cp), ns).disclosePort(7000);
    await exposing;
    expect(slow.delayed).toBeGreaterThan(0);
    expect(await state(ns)).toEqual(expected({ ports: [GRPC_PORT] }));
  }, 60_000);

  test("an exposePort that arrives while another replica's disclosePort is between its two writes waits its turn: both objects agree", async () => {
    const ns = await release("own-race-disclose");
    await managerFor(kube, ns).exposePort({ hostnames: ["race.example.com"], port: 7000 });
    const exposed = await state(ns);
    // Delay only the Service write that removes port7000 (not the lock writes).
    const slow = new SlowClient(
      await ownClient(cp),
      "Service",
      500,
      (o) => !(o as { spec?: { ports?: { port: number }[] } }).spec?.ports?.some((p) => p.port === 7000),
    );
    const disclosing = managerFor(slow, ns).disclosePort(7000);
    await until(async () => (await state(ns)).ingress.annotations[INGRESS_RECORD_ANNOTATION] === undefined); // Ingress written, Service pending
    await managerFor(await ownClient(cp), ns).exposePort({ hostnames: ["race.example.com"], port: 7000 });
    await disclosing;
    expect(slow.delayed).toBeGreaterThan(0);
    expect(await state(ns)).toEqual(exposed);
  }, 60_000);

  test("a lock left by a crashed replica is taken over after its TTL, and released after the write", async () => {
    const ns = await release("own-stale-lock");
    await otherWriterEdit({
      what: "test",
      read: () => kube.get(services, SERVICE, ns),
      modify: (s) => ({
        ...s,
        metadata: {
          ...s.metadata,
          annotations: { [EXPOSE_LOCK_ANNOTATION]: JSON.stringify({ holder: "crashed-pod/dead", ttlSeconds: 1, since: "2026-01-01T00:00:00Z" }) },
        },
      }),
      write: (s) => kube.update(services, s),
    });
    await managerFor(kube, ns).exposePort({ hostnames: ["a.example.com"], port: 8080 });
    const s = await state(ns);
    expect(s.service.annotations).toEqual({ [SERVICE_RECORD_ANNOTATION]: '{"8080":"own"}' });
    expect(s.service.ports).toEqual([GRPC_PORT, ourPort(8080)] as never);
  }, 60_000);
});

describe("all or nothing", () => {
  test("exposePort whose Ingress write is refused by RBAC leaves the Service as it was", async () => {
    const ns = await release("own-rbac-fail");
    const before = await state(ns);
    const client = await serviceAccountClient(ns, "no-ingress-update", [
      { apiGroups: [""], resources: ["pods"], verbs: ["get"] },
      { apiGroups: [""], resources: ["services"], verbs: ["get", "list", "update"] },
      { apiGroups: ["networking.k8s.io"], resources: ["ingresses"], verbs: ["get", "list"] },
    ]);
    const err = await rejection(managerFor(client, ns).exposePort({ hostnames: ["a.example.com"], port: 8080 }));
    expect(err).toBeInstanceOf(KubeApiError);
    expect((err as KubeApiError).status).toBe(403);
    expect(await state(ns)).toEqual(before);
  });

  test("disclosePort whose Service write fails puts the Ingress back exactly (order of rules and TLS included)", async () => {
    const ns = await release("own-disclose-fail", { rules: [rule("z.example.com", pathTo("/", 1, "z"))], tls: [tlsFor("z.example.com")] });
    await managerFor(kube, ns).exposePort({ hostnames: ["a.example.com", "b.example.com"], port: 8080 });
    await managerFor(kube, ns).exposePort({ hostnames: ["c.example.com"], port: 8081 });
    const before = await state(ns);
    const faulty = new FaultyClient(
      kube,
      (kind, o) => kind === "Service" && !(o as { spec?: { ports?: { port: number }[] } }).spec?.ports?.some((p) => p.port === 8080),
    );
    const err = await rejection(managerFor(faulty, ns).disclosePort(8080));
    expect(faulty.failed).toEqual(["Service"]);
    expect((err as KubeApiError).status).toBe(503);
    expect(await state(ns)).toEqual(before);
  });

  test("when the undo fails too, a PartialWriteError says so, and the recorded half is settled by the next disclosePort", async () => {
    const ns = await release("own-partial");
    const before = await state(ns);
    let added = false; // the Service write that adds port8080 went through
    const faulty = new FaultyClient(kube, (kind, o) => {
      if (kind === "Ingress") return true;
      const hasPort = (o as { spec?: { ports?: { port: number }[] } }).spec?.ports?.some((p) => p.port === 8080) ?? false;
      if (hasPort) added = true;
      return added && !hasPort; // the undo; the lock writes before and after it pass
    });
    const err = await rejection(managerFor(faulty, ns).exposePort({ hostnames: ["a.example.com"], port: 8080 }));
    expect(err).toBeInstanceOf(PartialWriteError);
    expect(err.message).toContain(`exposePort(8080) failed half-way: PUT /Ingress/${INGRESS}: 503`);
    expect(err.message).toContain(`undoing its change of Service ${ns}/${SERVICE} failed too`);
    const half = await state(ns);
    expect(half.service.ports).toEqual([GRPC_PORT, ourPort(8080)] as never);
    expect(half.service.annotations).toEqual({ [SERVICE_RECORD_ANNOTATION]: '{"8080":"own"}' });
    expect(half.ingress).toEqual(before.ingress);

    await managerFor(kube, ns).disclosePort(8080);
    expect(await state(ns)).toEqual(before);
  });
});

describe("permissions", () => {
  test("pods get, services and ingresses list, and get/update on only the release's Service and Ingress are enough", async () => {
    const ns = await release("own-rbac-min");
    const before = await state(ns);
    const client = await serviceAccountClient(ns, "least", [
      { apiGroups: [""], resources: ["pods"], verbs: ["get"] },
      { apiGroups: [""], resources: ["services"], verbs: ["list"] },
      { apiGroups: [""], resources: ["services"], resourceNames: [SERVICE], verbs: ["get", "update"] },
      { apiGroups: ["networking.k8s.io"], resources: ["ingresses"], verbs: ["list"] },
      { apiGroups: ["networking.k8s.io"], resources: ["ingresses"], resourceNames: [INGRESS], verbs: ["get", "update"] },
    ]);
    const m = managerFor(client, ns);
    await m.exposePort({ hostnames: ["a.example.com"], port: 8080 });
    expect((await state(ns)).service.ports).toEqual([GRPC_PORT, ourPort(8080)] as never);
    await m.disclosePort(8080);
    expect(await state(ns)).toEqual(before);
  });
});
