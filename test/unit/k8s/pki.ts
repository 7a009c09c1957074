/**
 * Test PKI made with `openssl` in a temp folder: two CAs, a server certificate for 127.0.0.1 from
 * each, and a client certificate from the first (recipe: reference/test-control-plane.md §2.2).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** PEM material for the HTTP tests. */
export interface TestPki {
  dir: string;
  caPem: string;
  serverCertPem: string;
  serverKeyPem: string;
  clientCertPem: string;
  clientKeyPem: string;
  /** A CA unrelated to `caPem`, and a server certificate it signed. */
  otherCaPem: string;
  otherServerCertPem: string;
  otherServerKeyPem: string;
}

function openssl(dir: string, args: string[]): void {
  const r = Bun.spawnSync(["openssl", ...args], { cwd: dir, stderr: "pipe", stdout: "pipe" });
  if (r.exitCode !== 0) throw new Error(`openssl ${args.join(" ")} failed: ${r.stderr.toString()}`);
}

function makeCa(dir: string, name: string): void {
  openssl(dir, ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", `${name}.key`]);
  openssl(dir, [
    "req",
    "-x509",
    "-new",
    "-key",
    `${name}.key`,
    "-subj",
    `/CN=${name}`,
    "-days",
    "2",
    "-out",
    `${name}.crt`,
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ]);
}

function makeLeaf(dir: string, ca: string, name: string, subject: string, ext: string): void {
  writeFileSync(join(dir, `${name}.ext`), ext);
  openssl(dir, ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", `${name}.key`]);
  openssl(dir, ["req", "-new", "-key", `${name}.key`, "-subj", subject, "-out", `${name}.csr`]);
  openssl(dir, [
    "x509",
    "-req",
    "-in",
    `${name}.csr`,
    "-CA",
    `${ca}.crt`,
    "-CAkey",
    `${ca}.key`,
    "-CAcreateserial",
    "-days",
    "2",
    "-extfile",
    `${name}.ext`,
    "-out",
    `${name}.crt`,
  ]);
}

/** Generates the PKI (about a tenth of a second of openssl work). */
export function makeTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), "tinyhost-pki-"));
  makeCa(dir, "ca");
  makeCa(dir, "other-ca");
  const serverExt = "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n";
  makeLeaf(dir, "ca", "server", "/CN=localhost", serverExt);
  makeLeaf(dir, "other-ca", "other-server", "/CN=localhost", serverExt);
  makeLeaf(dir, "ca", "client", "/CN=alice/O=devs", "extendedKeyUsage=clientAuth\n");
  const read = (f: string) => readFileSync(join(dir, f), "utf8");
  return {
    dir,
    caPem: read("ca.crt"),
    serverCertPem: read("server.crt"),
    serverKeyPem: read("server.key"),
    clientCertPem: read("client.crt"),
    clientKeyPem: read("client.key"),
    otherCaPem: read("other-ca.crt"),
    otherServerCertPem: read("other-server.crt"),
    otherServerKeyPem: read("other-server.key"),
  };
}
