/**
 * The REST client against a local TLS server (Bun.serve on 127.0.0.1:0) with certificates made by
 * openssl: CA verification, client certificates, headers, verbs, content types, errors, watch.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StaticCredentials, TokenFileCredentials, type ClusterConnection, type Credentials } from "../../../src/k8s/config/index.ts";
import {
  KubeApiError,
  KubeClient,
  KubeConnectionError,
  configMaps,
  isConflict,
  isNotFound,
  leases,
  namespaces,
  type ConfigMap,
  type WatchEvent,
} from "../../../src/k8s/client/index.ts";
import { version } from "../../../src/core/version.ts";
import { makeTestPki, type TestPki } from "./pki.ts";

interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  body: string;
}

type Handler = (req: Request, url: URL) => Response | Promise<Response>;

let pki: TestPki;
let tmp: string;
const servers: { stop(force?: boolean): unknown }[] = [];

beforeAll(() => {
  pki = makeTestPki();
  tmp = mkdtempSync(join(tmpdir(), "tinyhost-client-"));
});
afterEach(() => {
  for (const s of servers.splice(0)) s.stop(true);
});
afterAll(() => {
  rmSync(pki.dir, { recursive: true, force: true });
  rmSync(tmp, { recursive: true, force: true });
});

/** Starts a TLS server that records requests; `requireClientCert` makes it refuse handshakes without a CA-signed client cert. */
function serve(handler: Handler, opts: { other?: boolean; requireClientCert?: boolean } = {}) {
  const seen: Seen[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: {
      cert: opts.other ? pki.otherServerCertPem : pki.serverCertPem,
      key: opts.other ? pki.otherServerKeyPem : pki.serverKeyPem,
      ...(opts.requireClientCert ? { ca: pki.caPem, requestCert: true, rejectUnauthorized: true } : {}),
    },
    async fetch(req) {
      const url = new URL(req.url);
      const body = await req.text();
      seen.push({ method: req.method, path: url.pathname, query: url.searchParams, headers: req.headers, body });
      return handler(new Request(req.url, { method: req.method, headers: req.headers, ...(body ? { body } : {}) }), url);
    },
  });
  servers.push(server);
  return { url: `https://127.0.0.1:${server.port}`, seen };
}

function connect(server: string, creds: Credentials | ClusterConnection["credentials"] = {}, extra: Partial<ClusterConnection> = {}): ClusterConnection {
  const credentials = "current" in creds ? creds : new StaticCredentials(creds as Credentials);
  return { server, caPem: pki.caPem, insecureSkipTlsVerify: false, namespace: "team", credentials, source: "test", ...extra };
}

const cm = (name: string, rv = "1"): ConfigMap => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "team", resourceVersion: rv },
  data: { k: "v" },
});
const json = (body: unknown, status = 200) => Response.json(body, { status });
const statusBody = (code: number, reason: string, message: string) => ({ kind: "Status", apiVersion: "v1", status: "Failure", reason, code, message });

describe("TLS and authentication", () => {
  test("a server signed by the configured CA is trusted", async () => {
    const { url } = serve(() => json(cm("a")));
    const got = await new KubeClient(connect(url)).get(configMaps, "a");
    expect(got.metadata.name).toBe("a");
  });

  test("a server signed by another CA is refused with KubeConnectionError naming the server", async () => {
    const { url, seen } = serve(() => json(cm("a")), { other: true });
    const err = await new KubeClient(connect(url)).get(configMaps, "a").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeConnectionError);
    expect((err as KubeConnectionError).server).toBe(url);
    expect((err as Error).message).toContain(url);
    expect(seen).toHaveLength(0);
  });

  test("insecure-skip-tls-verify accepts a server from an unknown CA", async () => {
    const { url } = serve(() => json(cm("a")), { other: true });
    const client = new KubeClient(connect(url, {}, { caPem: undefined, insecureSkipTlsVerify: true }));
    expect((await client.get(configMaps, "a")).metadata.name).toBe("a");
  });

  test("the bearer token, Accept and User-Agent headers are sent", async () => {
    const { url, seen } = serve(() => json(cm("a")));
    await new KubeClient(connect(url, { token: "tok-123" })).get(configMaps, "a");
    expect(seen[0]?.headers.get("authorization")).toBe("Bearer tok-123");
    expect(seen[0]?.headers.get("accept")).toBe("application/json");
    expect(seen[0]?.headers.get("user-agent")).toBe(`tinyhost/${version}`);
  });

  test("the client certificate is presented to a server that requires one", async () => {
    const { url } = serve(() => json(cm("a")), { requireClientCert: true });
    const withCert = new KubeClient(connect(url, { clientCertPem: pki.clientCertPem, clientKeyPem: pki.clientKeyPem }));
    expect((await withCert.get(configMaps, "a")).metadata.name).toBe("a");
    const without = await new KubeClient(connect(url)).get(configMaps, "a").catch((e: unknown) => e);
    expect(without).toBeInstanceOf(KubeConnectionError);
  });

  test("a 401 makes the client re-read the token file and retry once", async () => {
    const tokenPath = join(tmp, "rotating-token");
    writeFileSync(tokenPath, "old");
    const { url, seen } = serve((req) =>
      req.headers.get("authorization") === "Bearer new" ? json(cm("a")) : json(statusBody(401, "Unauthorized", "Unauthorized"), 401),
    );
    const creds = new TokenFileCredentials({ path: tokenPath, source: "test", field: "tokenFile" });
    const client = new KubeClient(connect(url, creds));
    await creds.current();
    writeFileSync(tokenPath, "new");
    utimesSync(tokenPath, new Date(), new Date(Date.now() + 10_000));
    expect((await client.get(configMaps, "a")).metadata.name).toBe("a");
    expect(seen.map((s) => s.headers.get("authorization"))).toEqual(["Bearer old", "Bearer new"]);
  });

  test("a 401 with static credentials is not retried", async () => {
    const { url, seen } = serve(() => json(statusBody(401, "Unauthorized", "Unauthorized"), 401));
    const err = await new KubeClient(connect(url, { token: "bad" })).get(configMaps, "a").catch((e: unknown) => e);
    expect((err as KubeApiError).reason).toBe("Unauthorized");
    expect(seen).toHaveLength(1);
  });
});

describe("verbs, paths and content types", () => {
  test("get of a namespaced object uses the connection's namespace by default", async () => {
    const { url, seen } = serve(() => json(cm("a")));
    const client = new KubeClient(connect(url));
    await client.get(configMaps, "a");
    await client.get(configMaps, "a", "other");
    expect(seen.map((s) => s.path)).toEqual(["/api/v1/namespaces/team/configmaps/a", "/api/v1/namespaces/other/configmaps/a"]);
  });

  test("a grouped cluster-scoped or namespaced resource gets its /apis path", async () => {
    const { url, seen } = serve(() => json({ metadata: { name: "x" } }));
    const client = new KubeClient(connect(url));
    await client.get(leases, "leader", "tinysystems");
    await client.get(namespaces, "tinysystems");
    expect(seen.map((s) => s.path)).toEqual(["/apis/coordination.k8s.io/v1/namespaces/tinysystems/leases/leader", "/api/v1/namespaces/tinysystems"]);
  });

  test("create POSTs to the collection with apiVersion and kind filled in", async () => {
    const { url, seen } = serve((req) => req.json().then((b) => json(b, 201)));
    await new KubeClient(connect(url)).create(configMaps, { metadata: { name: "n" }, data: { a: "b" } }, { fieldManager: "tinyhost" });
    expect(seen[0]?.method).toBe("POST");
    expect(seen[0]?.path).toBe("/api/v1/namespaces/team/configmaps");
    expect(seen[0]?.query.get("fieldManager")).toBe("tinyhost");
    expect(seen[0]?.headers.get("content-type")).toBe("application/json");
    expect(JSON.parse(seen[0]?.body ?? "")).toEqual({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "n" }, data: { a: "b" } });
  });

  test("update PUTs the object with its resourceVersion to the object path (or its status)", async () => {
    const { url, seen } = serve((req) => req.json().then((b) => json(b)));
    const client = new KubeClient(connect(url));
    await client.update(configMaps, cm("a", "42"));
    await client.update(configMaps, cm("a", "43"), { subresource: "status" });
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual(["PUT /api/v1/namespaces/team/configmaps/a", "PUT /api/v1/namespaces/team/configmaps/a/status"]);
    expect(JSON.parse(seen[0]?.body ?? "").metadata.resourceVersion).toBe("42");
  });

  test("mergePatch, jsonPatch and apply send their content types", async () => {
    const { url, seen } = serve(() => json(cm("a")));
    const client = new KubeClient(connect(url));
    await client.mergePatch(configMaps, "a", { data: { k: null } });
    await client.jsonPatch(configMaps, "a", [{ op: "replace", path: "/data/k", value: "w" }]);
    await client.apply(configMaps, { metadata: { name: "a" }, data: { k: "v" } }, { fieldManager: "tinyhost", force: true });
    expect(seen.map((s) => `${s.method} ${s.headers.get("content-type")}`)).toEqual([
      "PATCH application/merge-patch+json",
      "PATCH application/json-patch+json",
      "PATCH application/apply-patch+yaml",
    ]);
    expect(JSON.parse(seen[0]?.body ?? "")).toEqual({ data: { k: null } });
    expect(JSON.parse(seen[1]?.body ?? "")).toEqual([{ op: "replace", path: "/data/k", value: "w" }]);
    expect(JSON.parse(seen[2]?.body ?? "")).toEqual({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" }, data: { k: "v" } });
    expect(seen[2]?.query.get("fieldManager")).toBe("tinyhost");
    expect(seen[2]?.query.get("force")).toBe("true");
  });

  test("apply without a fieldManager is refused before any request", async () => {
    const { url, seen } = serve(() => json(cm("a")));
    const client = new KubeClient(connect(url));
    expect(client.apply(configMaps, { metadata: { name: "a" } }, { fieldManager: "" })).rejects.toThrow("fieldManager is required");
    expect(seen).toHaveLength(0);
  });

  test("delete sends DeleteOptions with propagation, grace period and preconditions", async () => {
    const { url, seen } = serve(() => json({ kind: "Status", status: "Success" }));
    await new KubeClient(connect(url)).delete(configMaps, "a", {
      propagationPolicy: "Foreground",
      gracePeriodSeconds: 0,
      preconditions: { resourceVersion: "9" },
    });
    expect(seen[0]?.method).toBe("DELETE");
    expect(JSON.parse(seen[0]?.body ?? "")).toEqual({
      apiVersion: "v1",
      kind: "DeleteOptions",
      propagationPolicy: "Foreground",
      gracePeriodSeconds: 0,
      preconditions: { resourceVersion: "9" },
    });
  });

  test("list passes selectors and paging and fills apiVersion/kind of items", async () => {
    const { url, seen } = serve(() =>
      json({ kind: "ConfigMapList", metadata: { resourceVersion: "100", continue: "tok" }, items: [{ metadata: { name: "a" } }] }),
    );
    const page = await new KubeClient(connect(url)).list(configMaps, { namespace: "team", labelSelector: "app=x", fieldSelector: "metadata.name=a", limit: 1 });
    expect(seen[0]?.query.toString()).toBe("labelSelector=app%3Dx&fieldSelector=metadata.name%3Da&limit=1");
    expect(page).toEqual({ items: [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" } }], metadata: { resourceVersion: "100", continue: "tok" } });
  });

  test("list without a namespace lists across all namespaces", async () => {
    const { url, seen } = serve(() => json({ metadata: { resourceVersion: "1" }, items: [] }));
    await new KubeClient(connect(url)).list(configMaps);
    expect(seen[0]?.path).toBe("/api/v1/configmaps");
  });

  test("listAll follows continue tokens until the last page", async () => {
    const pages: Record<string, unknown> = {
      "": { metadata: { resourceVersion: "7", continue: "p2" }, items: [{ metadata: { name: "a" } }] },
      p2: { metadata: { resourceVersion: "7", continue: "p3" }, items: [{ metadata: { name: "b" } }] },
      p3: { metadata: { resourceVersion: "7" }, items: [{ metadata: { name: "c" } }] },
    };
    const { url, seen } = serve((_req, u) => json(pages[u.searchParams.get("continue") ?? ""]));
    const all = await new KubeClient(connect(url)).listAll(configMaps, { namespace: "team", limit: 1 });
    expect(all.items.map((i) => i.metadata.name)).toEqual(["a", "b", "c"]);
    expect(all.metadata.resourceVersion).toBe("7");
    expect(seen.map((s) => s.query.get("limit"))).toEqual(["1", "1", "1"]);
  });

  test("raw request reaches any path and parses JSON", async () => {
    const { url, seen } = serve(() => json({ gitVersion: "v1.36.0" }));
    const v = await new KubeClient(connect(url)).request<{ gitVersion: string }>({ method: "GET", path: "/version", query: { a: ["1", "2"] } });
    expect(v.gitVersion).toBe("v1.36.0");
    expect(seen[0]?.query.getAll("a")).toEqual(["1", "2"]);
  });

  test("stats count requests per verb", async () => {
    const { url } = serve((_r, u) =>
      json(u.searchParams.has("limit") || u.pathname.endsWith("configmaps") ? { metadata: { resourceVersion: "1" }, items: [] } : cm("a")),
    );
    const client = new KubeClient(connect(url));
    await client.get(configMaps, "a");
    await client.get(configMaps, "a");
    await client.list(configMaps, { namespace: "team" });
    await client.mergePatch(configMaps, "a", { data: {} });
    await client.apply(configMaps, { metadata: { name: "a" } }, { fieldManager: "m" });
    expect(client.stats).toEqual({ get: 2, list: 1, watch: 0, create: 0, update: 0, patch: 1, apply: 1, delete: 0, raw: 0 });
  });
});

describe("errors", () => {
  test("a Status body becomes a typed KubeApiError naming verb and path", async () => {
    const { url } = serve(() => json(statusBody(404, "NotFound", 'configmaps "gone" not found'), 404));
    const err = await new KubeClient(connect(url)).get(configMaps, "gone").catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
    expect((err as KubeApiError).message).toBe('GET /api/v1/namespaces/team/configmaps/gone: 404 NotFound: configmaps "gone" not found');
  });

  test("a 409 Conflict on update is recognised by isConflict", async () => {
    const { url } = serve(() => json(statusBody(409, "Conflict", "the object has been modified"), 409));
    const err = await new KubeClient(connect(url)).update(configMaps, cm("a", "1")).catch((e: unknown) => e);
    expect(isConflict(err)).toBe(true);
  });

  test("a request slower than the timeout fails with KubeConnectionError timedOut", async () => {
    const { url } = serve(() => new Promise<Response>((r) => setTimeout(() => r(json(cm("a"))), 2000)));
    const err = await new KubeClient(connect(url), { timeoutMs: 100 }).get(configMaps, "a").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeConnectionError);
    expect((err as KubeConnectionError).timedOut).toBe(true);
  });

  test("an aborted call rejects with the signal's reason", async () => {
    const { url } = serve(() => new Promise<Response>((r) => setTimeout(() => r(json(cm("a"))), 2000)));
    const ac = new AbortController();
    const p = new KubeClient(connect(url)).get(configMaps, "a", undefined, { signal: ac.signal }).catch((e: unknown) => e);
    ac.abort(new Error("stop now"));
    expect(((await p) as Error).message).toBe("stop now");
  });

  test("a refused connection is a KubeConnectionError", async () => {
    const { url } = serve(() => json({}));
    servers.splice(0).forEach((s) => s.stop(true)); // the port is now closed
    const err = await new KubeClient(connect(url)).get(configMaps, "a").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeConnectionError);
  });
});

describe("watch", () => {
  /** A server whose watch response streams the given lines, one per chunk, then stays open. */
  function streaming(lines: string[], splitMidLine = false) {
    return serve((_req, u) => {
      if (u.searchParams.get("watch") !== "true") return json({}, 400);
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          const enc = new TextEncoder();
          for (const l of lines) {
            if (splitMidLine) {
              controller.enqueue(enc.encode(l.slice(0, 5)));
              await Bun.sleep(5);
              controller.enqueue(enc.encode(l.slice(5)));
            } else controller.enqueue(enc.encode(l));
            await Bun.sleep(5);
          }
        },
      });
      return new Response(body, { headers: { "content-type": "application/json" } });
    });
  }
  const ev = (type: string, name: string, rv: string) => JSON.stringify({ type, object: { metadata: { name, resourceVersion: rv } } }) + "\n";

  test("events streamed by the server arrive in order, and aborting ends the iteration cleanly", async () => {
    const { url, seen } = streaming([ev("ADDED", "a", "2"), ev("MODIFIED", "a", "3"), ev("BOOKMARK", "", "4")], true);
    const ac = new AbortController();
    const got: WatchEvent<ConfigMap>[] = [];
    for await (const e of new KubeClient(connect(url)).watch(configMaps, { namespace: "team", resourceVersion: "1", signal: ac.signal })) {
      got.push(e);
      if (got.length === 3) ac.abort();
    }
    expect(got.map((e) => `${e.type}:${e.type === "ERROR" ? "" : e.object.metadata.resourceVersion}`)).toEqual(["ADDED:2", "MODIFIED:3", "BOOKMARK:4"]);
    expect(seen[0]?.path).toBe("/api/v1/namespaces/team/configmaps");
    expect(seen[0]?.query.get("resourceVersion")).toBe("1");
    expect(seen[0]?.query.get("allowWatchBookmarks")).toBe("true");
  });

  test("aborting while waiting for the next event ends the iteration without an error", async () => {
    const { url } = streaming([ev("ADDED", "a", "2")]);
    const ac = new AbortController();
    const got: string[] = [];
    // Aborted only once the first event is in, so a slow machine cannot abort before it arrives.
    for await (const e of new KubeClient(connect(url)).watch(configMaps, { resourceVersion: "1", signal: ac.signal })) {
      got.push(e.type);
      setTimeout(() => ac.abort(), 50);
    }
    expect(got).toEqual(["ADDED"]);
  });

  test("a 410 ERROR event in the stream is thrown as Gone", async () => {
    const { url } = streaming([JSON.stringify({ type: "ERROR", object: statusBody(410, "Expired", "too old resource version: 1 (9)") }) + "\n"]);
    const err = await (async () => {
      for await (const _ of new KubeClient(connect(url)).watch(configMaps, { resourceVersion: "1" })) {
        // no events before the error
      }
    })().catch((e: unknown) => e);
    expect((err as KubeApiError).reason).toBe("Gone");
    expect((err as KubeApiError).status).toBe(410);
  });

  test("a watch refused by the server throws the KubeApiError on first iteration", async () => {
    const { url } = serve(() => json(statusBody(403, "Forbidden", "configmaps is forbidden"), 403));
    const err = await (async () => {
      for await (const _ of new KubeClient(connect(url)).watch(configMaps, {})) {
        // unreachable
      }
    })().catch((e: unknown) => e);
    expect((err as KubeApiError).reason).toBe("Forbidden");
    expect((err as KubeApiError).message).toStartWith("WATCH /api/v1/configmaps: 403 Forbidden");
  });
});
