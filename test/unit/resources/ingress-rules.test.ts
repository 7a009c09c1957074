import { describe, expect, test } from "bun:test";
import { exposedPath, withExposedHosts, withoutExposedPort, type IngressRouting } from "../../../src/k8s/resources/index.ts";

const SVC = "shop-manager-service";
const path = (p: string, port: number, service = SVC) => ({ path: p, pathType: "Prefix", backend: { service: { name: service, port: { number: port } } } });
const tls = (host: string) => ({ hosts: [host], secretName: `${host}-tls` });
const empty: IngressRouting = { rules: [], tls: [] };

describe("withExposedHosts", () => {
  test("adds a rule / → service:port and a TLS entry per new host", () => {
    expect(withExposedHosts(empty, SVC, 8080, ["a.com", "b.com"])).toEqual({
      rules: [
        { host: "a.com", http: { paths: [path("/", 8080)] } },
        { host: "b.com", http: { paths: [path("/", 8080)] } },
      ],
      tls: [tls("a.com"), tls("b.com")],
    });
  });

  test("is deep-equal to its input when the hosts already route to the port", () => {
    const once = withExposedHosts(empty, SVC, 8080, ["a.com"]);
    expect(withExposedHosts(once, SVC, 8080, ["a.com"])).toEqual(once);
  });

  test("re-points an existing host's / path and keeps its other paths", () => {
    const routing: IngressRouting = { rules: [{ host: "a.com", http: { paths: [path("/api", 9000), path("/", 7000)] } }], tls: [tls("a.com")] };
    expect(withExposedHosts(routing, SVC, 8080, ["a.com"])).toEqual({
      rules: [{ host: "a.com", http: { paths: [path("/api", 9000), path("/", 8080)] } }],
      tls: [tls("a.com")],
    });
  });

  test("adds a / path to an existing rule that has only other paths", () => {
    const routing: IngressRouting = { rules: [{ host: "a.com", http: { paths: [path("/api", 9000)] } }], tls: [] };
    expect(withExposedHosts(routing, SVC, 8080, ["a.com"]).rules).toEqual([{ host: "a.com", http: { paths: [path("/api", 9000), path("/", 8080)] } }]);
  });

  test("adds no TLS entry for a host any entry already covers, even a multi-host one", () => {
    const shared = { hosts: ["x.com", "a.com"], secretName: "shared" };
    expect(withExposedHosts({ rules: [], tls: [shared] }, SVC, 8080, ["a.com"]).tls).toEqual([shared]);
  });

  test("keeps other rules and unknown fields", () => {
    const routing: IngressRouting = { rules: [{ host: "z.com", http: { paths: [path("/", 1)] }, extra: true }], tls: [] };
    expect(withExposedHosts(routing, SVC, 8080, ["a.com"]).rules[0]).toEqual({ host: "z.com", http: { paths: [path("/", 1)] }, extra: true });
  });

  test("does not mutate its input", () => {
    const routing: IngressRouting = { rules: [{ host: "a.com", http: { paths: [path("/", 7000)] } }], tls: [] };
    const copy = structuredClone(routing);
    withExposedHosts(routing, SVC, 8080, ["a.com", "b.com"]);
    expect(routing).toEqual(copy);
  });

  test("exposedPath is Prefix / with a service backend port number", () => {
    expect(exposedPath(SVC, 8080)).toEqual(path("/", 8080));
  });
});

describe("withoutExposedPort", () => {
  test("removes the port's rules and their hosts' TLS entries, keeping other ports'", () => {
    const routing: IngressRouting = {
      rules: [
        { host: "a.com", http: { paths: [path("/", 8080)] } },
        { host: "b.com", http: { paths: [path("/", 8081)] } },
      ],
      tls: [tls("a.com"), tls("b.com")],
    };
    expect(withoutExposedPort(routing, SVC, 8080)).toEqual({ rules: [routing.rules[1]!], tls: [tls("b.com")] });
  });

  test("a multi-path rule keeps its other paths once, and its host keeps TLS", () => {
    const routing: IngressRouting = { rules: [{ host: "a.com", http: { paths: [path("/api", 8081), path("/", 8080), path("/x", 8082)] } }], tls: [tls("a.com")] };
    expect(withoutExposedPort(routing, SVC, 8080)).toEqual({
      rules: [{ host: "a.com", http: { paths: [path("/api", 8081), path("/x", 8082)] } }],
      tls: [tls("a.com")],
    });
  });

  test("keeps a host's TLS entry while another rule still uses the host", () => {
    const routing: IngressRouting = {
      rules: [
        { host: "a.com", http: { paths: [path("/", 8080)] } },
        { host: "a.com", http: { paths: [path("/", 9000)] } },
      ],
      tls: [tls("a.com")],
    };
    expect(withoutExposedPort(routing, SVC, 8080)).toEqual({ rules: [routing.rules[1]!], tls: [tls("a.com")] });
  });

  test("removes only the dropped host from a multi-host TLS entry", () => {
    const routing: IngressRouting = {
      rules: [{ host: "a.com", http: { paths: [path("/", 8080)] } }],
      tls: [{ hosts: ["a.com", "b.com"], secretName: "shared" }],
    };
    expect(withoutExposedPort(routing, SVC, 8080).tls).toEqual([{ hosts: ["b.com"], secretName: "shared" }]);
  });

  test("keeps rules without an HTTP section and paths to other services on the same port number", () => {
    const routing: IngressRouting = {
      rules: [{ host: "static.com" }, { host: "o.com", http: { paths: [path("/", 8080, "other-service")] } }],
      tls: [tls("o.com")],
    };
    expect(withoutExposedPort(routing, SVC, 8080)).toEqual(routing);
  });

  test("a rule without a host is removed with no TLS change", () => {
    const routing: IngressRouting = { rules: [{ http: { paths: [path("/", 8080)] } }], tls: [tls("a.com")] };
    expect(withoutExposedPort(routing, SVC, 8080)).toEqual({ rules: [], tls: [tls("a.com")] });
  });

  test("expose then disclose restores the original routing", () => {
    const start: IngressRouting = { rules: [{ host: "z.com", http: { paths: [path("/", 1)] } }], tls: [tls("z.com")] };
    const exposed = withExposedHosts(start, SVC, 8080, ["a.com", "b.com"]);
    expect(withoutExposedPort(exposed, SVC, 8080)).toEqual(start);
  });
});
