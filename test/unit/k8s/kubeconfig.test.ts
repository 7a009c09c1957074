import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { ExecCredentials, KubeConfigError, loadKubeConfig, parseKubeConfig, readKubeConfigFile } from "../../../src/k8s/config/index.ts";
import { makeTestPki, type TestPki } from "./pki.ts";

let pki: TestPki;
let dir: string;
const b64 = (s: string) => Buffer.from(s).toString("base64");

beforeAll(() => {
  pki = makeTestPki();
  dir = mkdtempSync(join(tmpdir(), "tinyhost-kubeconfig-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(pki.dir, { recursive: true, force: true });
});

/** A kubeconfig with one cluster, one context and the given user block. */
function kubeconfig(user: Record<string, unknown> | undefined, extra: { cluster?: Record<string, unknown>; namespace?: string } = {}) {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    "current-context": "dev",
    clusters: [{ name: "c1", cluster: { server: "https://127.0.0.1:6443", "certificate-authority-data": b64(pki.caPem), ...extra.cluster } }],
    users: user ? [{ name: "u1", user }] : [],
    contexts: [{ name: "dev", context: { cluster: "c1", ...(user ? { user: "u1" } : {}), ...(extra.namespace ? { namespace: extra.namespace } : {}) } }],
  });
}

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

async function configError(p: Promise<unknown>): Promise<KubeConfigError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(KubeConfigError);
  return e as KubeConfigError;
}

describe("kubeconfig", () => {
  test("reads server, CA and client certificate from the -data fields", async () => {
    const conn = await parseKubeConfig(kubeconfig({ "client-certificate-data": b64(pki.clientCertPem), "client-key-data": b64(pki.clientKeyPem) }), {
      path: "/x/config",
    });
    expect(conn.server).toBe("https://127.0.0.1:6443");
    expect(conn.caPem).toBe(pki.caPem);
    expect(await conn.credentials.current()).toEqual({ clientCertPem: pki.clientCertPem, clientKeyPem: pki.clientKeyPem });
    expect(conn.namespace).toBe("default");
    expect(conn.context).toBe("dev");
  });

  test("reads CA, client certificate and key from files relative to the kubeconfig's folder", async () => {
    const sub = mkdtempSync(join(dir, "files-"));
    writeFileSync(join(sub, "ca.crt"), pki.caPem);
    writeFileSync(join(sub, "client.crt"), pki.clientCertPem);
    writeFileSync(join(sub, "client.key"), pki.clientKeyPem);
    const path = join(sub, "config");
    writeFileSync(
      path,
      kubeconfig(
        { "client-certificate": "client.crt", "client-key": "client.key" },
        { cluster: { "certificate-authority-data": undefined, "certificate-authority": "ca.crt" } },
      ),
    );
    const conn = await readKubeConfigFile(path);
    expect(conn.caPem).toBe(pki.caPem);
    expect(await conn.credentials.current()).toEqual({ clientCertPem: pki.clientCertPem, clientKeyPem: pki.clientKeyPem });
  });

  test("a static token becomes the bearer credential", async () => {
    const conn = await parseKubeConfig(kubeconfig({ token: "s3cret" }), { path: "/x/config" });
    expect((await conn.credentials.current()).token).toBe("s3cret");
    expect(conn.credentials.invalidate()).toBe(false);
  });

  test("the context's namespace becomes the default namespace", async () => {
    const conn = await parseKubeConfig(kubeconfig({ token: "t" }, { namespace: "tinysystems" }), { path: "/x/config" });
    expect(conn.namespace).toBe("tinysystems");
  });

  test("an explicit context wins over current-context", async () => {
    const doc = {
      "current-context": "a",
      clusters: [
        { name: "ca", cluster: { server: "https://a.example:6443" } },
        { name: "cb", cluster: { server: "https://b.example:6443" } },
      ],
      contexts: [
        { name: "a", context: { cluster: "ca" } },
        { name: "b", context: { cluster: "cb" } },
      ],
    };
    expect((await parseKubeConfig(stringify(doc), { path: "/x/config" })).server).toBe("https://a.example:6443");
    expect((await parseKubeConfig(stringify(doc), { path: "/x/config", context: "b" })).server).toBe("https://b.example:6443");
  });

  test("tokenFile is re-read when its mtime changes, checked at most once per second", async () => {
    const tokenPath = write("token-reload", "first\n");
    let now = 1_000_000;
    const conn = await parseKubeConfig(kubeconfig({ tokenFile: tokenPath }), { path: join(dir, "config-tf"), now: () => now });
    expect((await conn.credentials.current()).token).toBe("first");
    writeFileSync(tokenPath, "second\n");
    utimesSync(tokenPath, new Date(), new Date(Date.now() + 5000));
    now += 500; // within the one-second window: no stat, old token
    expect((await conn.credentials.current()).token).toBe("first");
    now += 600; // past it: the changed mtime is seen
    expect((await conn.credentials.current()).token).toBe("second");
  });

  test("a missing tokenFile fails at load naming the file and field", async () => {
    const e = await configError(parseKubeConfig(kubeconfig({ tokenFile: "nope/token" }), { path: join(dir, "cfg-missing-token") }));
    expect(e.file).toBe(join(dir, "cfg-missing-token"));
    expect(e.field).toBe('users[name="u1"].user.tokenFile');
    expect(e.message).toContain(join(dir, "nope/token"));
  });

  test("a cluster without server fails naming the file and field", async () => {
    const e = await configError(parseKubeConfig(kubeconfig({ token: "t" }, { cluster: { server: undefined } }), { path: "/etc/kube/broken" }));
    expect(e.message).toBe('/etc/kube/broken: clusters[name="c1"].cluster.server is missing');
  });

  test("a context naming an absent user fails naming the user entry", async () => {
    const text = kubeconfig({ token: "t" }).replace("user: u1", "user: ghost");
    const e = await configError(parseKubeConfig(text, { path: "/k" }));
    expect(e.field).toBe('users[name="ghost"]');
  });

  test("a missing current-context fails naming that field", async () => {
    const e = await configError(parseKubeConfig(stringify({ clusters: [] }), { path: "/k" }));
    expect(e.field).toBe("current-context");
  });

  test("an unreadable client-certificate file fails naming the field and path", async () => {
    const e = await configError(
      parseKubeConfig(kubeconfig({ "client-certificate": "/no/such.crt", "client-key-data": b64(pki.clientKeyPem) }), { path: "/k" }),
    );
    expect(e.field).toBe('users[name="u1"].user.client-certificate');
    expect(e.message).toContain("/no/such.crt");
  });

  test("certificate-authority-data that is not base64 PEM is rejected", async () => {
    const e = await configError(parseKubeConfig(kubeconfig({ token: "t" }, { cluster: { "certificate-authority-data": "bm90IGEgcGVt" } }), { path: "/k" }));
    expect(e.field).toBe('clusters[name="c1"].cluster.certificate-authority-data');
  });

  test("insecure-skip-tls-verify is read and refused together with a CA", async () => {
    const ok = await parseKubeConfig(kubeconfig({ token: "t" }, { cluster: { "certificate-authority-data": undefined, "insecure-skip-tls-verify": true } }), {
      path: "/k",
    });
    expect(ok.insecureSkipTlsVerify).toBe(true);
    const e = await configError(parseKubeConfig(kubeconfig({ token: "t" }, { cluster: { "insecure-skip-tls-verify": true } }), { path: "/k" }));
    expect(e.field).toBe('clusters[name="c1"].cluster.insecure-skip-tls-verify');
  });

  test("an auth-provider user is refused with a pointer to exec plugins", async () => {
    const e = await configError(parseKubeConfig(kubeconfig({ "auth-provider": { name: "gcp" } }), { path: "/k" }));
    expect(e.field).toBe('users[name="u1"].user.auth-provider');
  });
});

describe("exec credential plugin", () => {
  /** Writes a script that logs each run and prints an ExecCredential. */
  function plugin(name: string, body: string): string {
    const path = write(name, `#!/bin/sh\n${body}\n`);
    chmodSync(path, 0o755);
    return path;
  }

  test("runs the command with args and env and uses status.token", async () => {
    const script = plugin(
      "plugin-ok.sh",
      [
        `echo "$1 $GREETING" >> "${dir}/plugin-ok.log"`,
        `echo "$KUBERNETES_EXEC_INFO" > "${dir}/plugin-ok.info"`,
        `printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"tok-%s"}}' "$1"`,
      ].join("\n"),
    );
    const conn = await parseKubeConfig(
      kubeconfig({
        exec: {
          apiVersion: "client.authentication.k8s.io/v1",
          command: script,
          args: ["abc"],
          env: [{ name: "GREETING", value: "hi" }],
          interactiveMode: "Never",
          provideClusterInfo: true,
        },
      }),
      { path: join(dir, "cfg-exec") },
    );
    expect((await conn.credentials.current()).token).toBe("tok-abc");
    expect(readFileSync(join(dir, "plugin-ok.log"), "utf8")).toBe("abc hi\n");
    const info = JSON.parse(readFileSync(join(dir, "plugin-ok.info"), "utf8"));
    expect(info).toMatchObject({
      apiVersion: "client.authentication.k8s.io/v1",
      kind: "ExecCredential",
      spec: { interactive: false, cluster: { server: "https://127.0.0.1:6443" } },
    });
  });

  test("a credential is cached until expirationTimestamp, then the plugin runs again", async () => {
    const script = plugin(
      "plugin-exp.sh",
      [
        `echo run >> "${dir}/plugin-exp.log"`,
        `n=$(wc -l < "${dir}/plugin-exp.log" | tr -d ' ')`,
        `printf '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"t%s","expirationTimestamp":"2030-01-01T00:00:00Z"}}' "$n"`,
      ].join("\n"),
    );
    let now = Date.parse("2029-12-31T23:59:00Z");
    const conn = await parseKubeConfig(kubeconfig({ exec: { apiVersion: "client.authentication.k8s.io/v1beta1", command: script } }), {
      path: join(dir, "cfg-exp"),
      now: () => now,
    });
    expect((await conn.credentials.current()).token).toBe("t1");
    expect((await conn.credentials.current()).token).toBe("t1");
    now = Date.parse("2030-01-01T00:00:01Z");
    expect((await conn.credentials.current()).token).toBe("t2");
    expect((conn.credentials as ExecCredentials).runs).toBe(2);
  });

  test("invalidate (after a 401) makes the plugin run again", async () => {
    const script = plugin("plugin-401.sh", `printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"x"}}'`);
    const conn = await parseKubeConfig(kubeconfig({ exec: { apiVersion: "client.authentication.k8s.io/v1", command: script } }), {
      path: join(dir, "cfg-401"),
    });
    await conn.credentials.current();
    expect(conn.credentials.invalidate()).toBe(true);
    await conn.credentials.current();
    expect((conn.credentials as ExecCredentials).runs).toBe(2);
  });

  test("client certificate data from the plugin is used for mutual TLS", async () => {
    const credPath = write(
      "plugin-cert.json",
      JSON.stringify({
        apiVersion: "client.authentication.k8s.io/v1",
        kind: "ExecCredential",
        status: { clientCertificateData: pki.clientCertPem, clientKeyData: pki.clientKeyPem },
      }),
    );
    const script = plugin("plugin-cert.sh", `cat "${credPath}"`);
    const conn = await parseKubeConfig(kubeconfig({ exec: { apiVersion: "client.authentication.k8s.io/v1", command: script } }), {
      path: join(dir, "cfg-cert"),
    });
    expect(await conn.credentials.current()).toEqual({ clientCertPem: pki.clientCertPem, clientKeyPem: pki.clientKeyPem });
  });

  test("output with the wrong apiVersion fails naming the exec field", async () => {
    const script = plugin("plugin-bad.sh", `printf '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"x"}}'`);
    const conn = await parseKubeConfig(kubeconfig({ exec: { apiVersion: "client.authentication.k8s.io/v1", command: script } }), { path: "/k/cfg" });
    const e = await configError(conn.credentials.current());
    expect(e.message).toStartWith('/k/cfg: users[name="u1"].user.exec plugin output: apiVersion is "client.authentication.k8s.io/v1beta1"');
  });

  test("a plugin exiting non-zero fails with its stderr", async () => {
    const script = plugin("plugin-fail.sh", `echo "login required" >&2; exit 3`);
    const conn = await parseKubeConfig(kubeconfig({ exec: { apiVersion: "client.authentication.k8s.io/v1", command: script } }), { path: "/k/cfg" });
    const e = await configError(conn.credentials.current());
    expect(e.field).toBe('users[name="u1"].user.exec.command');
    expect(e.message).toContain("exited with code 3: login required");
  });

  test("a command that does not exist fails with the install hint", async () => {
    const conn = await parseKubeConfig(
      kubeconfig({ exec: { apiVersion: "client.authentication.k8s.io/v1", command: "/no/such/plugin", installHint: "install it from example.com" } }),
      { path: "/k/cfg" },
    );
    const e = await configError(conn.credentials.current());
    expect(e.message).toContain("install it from example.com");
  });

  test("exec apiVersion v1alpha1 is refused at load", async () => {
    const e = await configError(
      parseKubeConfig(kubeconfig({ exec: { apiVersion: "client.authentication.k8s.io/v1alpha1", command: "x" } }), { path: "/k/cfg" }),
    );
    expect(e.field).toBe('users[name="u1"].user.exec.apiVersion');
  });
});

describe("loadKubeConfig order", () => {
  const cfg = (server: string) =>
    stringify({ "current-context": "x", clusters: [{ name: "c", cluster: { server } }], contexts: [{ name: "x", context: { cluster: "c" } }] });
  let explicitPath: string;
  let envPath: string;
  let home: string;
  let inClusterDir: string;

  beforeAll(() => {
    explicitPath = write("order-explicit", cfg("https://explicit:1"));
    envPath = write("order-env", cfg("https://env:1"));
    home = mkdtempSync(join(dir, "home-"));
    Bun.spawnSync(["mkdir", "-p", join(home, ".kube")]);
    writeFileSync(join(home, ".kube", "config"), cfg("https://home:1"));
    inClusterDir = mkdtempSync(join(dir, "sa-"));
    writeFileSync(join(inClusterDir, "token"), "sa-token");
    writeFileSync(join(inClusterDir, "ca.crt"), pki.caPem);
  });
  const inCluster = () => ({ tokenPath: join(inClusterDir, "token"), caPath: join(inClusterDir, "ca.crt"), namespacePath: join(inClusterDir, "namespace") });
  const env = { KUBECONFIG: "", KUBERNETES_SERVICE_HOST: "10.0.0.1", KUBERNETES_SERVICE_PORT: "443" };

  test("an explicit path wins over $KUBECONFIG, in-cluster and home", async () => {
    const c = await loadKubeConfig({ kubeconfig: explicitPath, env: { ...env, KUBECONFIG: envPath }, homeDir: home, inCluster: inCluster() });
    expect(c.server).toBe("https://explicit:1");
  });

  test("$KUBECONFIG (its first file) wins over in-cluster and home", async () => {
    const c = await loadKubeConfig({ env: { ...env, KUBECONFIG: `${envPath}:${explicitPath}` }, homeDir: home, inCluster: inCluster() });
    expect(c.server).toBe("https://env:1");
  });

  test("in-cluster is used when KUBERNETES_SERVICE_HOST is set and no kubeconfig is named", async () => {
    const c = await loadKubeConfig({ env, homeDir: home, inCluster: inCluster() });
    expect(c.source).toBe("in-cluster");
    expect(c.server).toBe("https://10.0.0.1:443");
  });

  test("~/.kube/config is the last resort", async () => {
    const c = await loadKubeConfig({ env: {}, homeDir: home });
    expect(c.server).toBe("https://home:1");
  });

  test("with nothing configured the error names ~/.kube/config", async () => {
    const e = await configError(loadKubeConfig({ env: {}, homeDir: join(dir, "nohome") }));
    expect(e.file).toBe(join(dir, "nohome", ".kube", "config"));
  });
});
