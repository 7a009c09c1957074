import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KubeConfigError, loadInClusterConfig } from "../../../src/k8s/config/index.ts";

let dir: string;
const paths = () => ({ tokenPath: join(dir, "token"), caPath: join(dir, "ca.crt"), namespacePath: join(dir, "namespace") });
const env = { KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tinyhost-sa-"));
  writeFileSync(join(dir, "token"), "token-1\n");
  writeFileSync(join(dir, "ca.crt"), "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
  writeFileSync(join(dir, "namespace"), "tinysystems");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("builds the server URL from KUBERNETES_SERVICE_HOST/PORT and reads CA, token and namespace", async () => {
  const conn = await loadInClusterConfig({ env, ...paths() });
  expect(conn.server).toBe("https://10.96.0.1:443");
  expect(conn.caPem).toContain("BEGIN CERTIFICATE");
  expect(conn.namespace).toBe("tinysystems");
  expect((await conn.credentials.current()).token).toBe("token-1");
  expect(conn.source).toBe("in-cluster");
});

test("an IPv6 service host is bracketed in the URL", async () => {
  const conn = await loadInClusterConfig({ env: { ...env, KUBERNETES_SERVICE_HOST: "fd00::1" }, ...paths() });
  expect(conn.server).toBe("https://[fd00::1]:443");
});

test("the namespace falls back to default when its file is absent", async () => {
  const conn = await loadInClusterConfig({ env, ...paths(), namespacePath: join(dir, "absent") });
  expect(conn.namespace).toBe("default");
});

test("the token is re-read after a minute even when the file's mtime did not change", async () => {
  const d = mkdtempSync(join(tmpdir(), "tinyhost-sa-rot-"));
  const tokenPath = join(d, "token");
  const fixed = new Date("2026-01-01T00:00:00Z");
  writeFileSync(tokenPath, "old");
  utimesSync(tokenPath, fixed, fixed);
  let now = 5_000_000;
  const conn = await loadInClusterConfig({ env, ...paths(), tokenPath, now: () => now });
  writeFileSync(tokenPath, "new");
  utimesSync(tokenPath, fixed, fixed); // same mtime: only the age rule can notice
  now += 30_000;
  expect((await conn.credentials.current()).token).toBe("old");
  now += 30_001;
  expect((await conn.credentials.current()).token).toBe("new");
  rmSync(d, { recursive: true, force: true });
});

test("a missing KUBERNETES_SERVICE_PORT is an error naming the variable", async () => {
  const e = await loadInClusterConfig({ env: { KUBERNETES_SERVICE_HOST: "10.0.0.1" }, ...paths() }).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(KubeConfigError);
  expect((e as KubeConfigError).field).toBe("KUBERNETES_SERVICE_PORT");
});

test("an unreadable token file is an error naming the path", async () => {
  const e = await loadInClusterConfig({ env, ...paths(), tokenPath: join(dir, "no-token") }).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(KubeConfigError);
  expect((e as Error).message).toContain(join(dir, "no-token"));
});
