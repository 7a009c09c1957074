/**
 * Certificates and credentials for the test control plane, made with openssl the way envtest's
 * tinyca does (docs/reference/test-control-plane.md §2.2): one CA signs the serving cert and
 * the client cert; a static token file gives a token user; an RSA pair signs service-account tokens.
 */
import { join } from "node:path";

/** Paths and contents of the generated credentials. */
export interface Pki {
  dir: string;
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  saKey: string;
  saPub: string;
  clientCert: string;
  clientKey: string;
  tokenFile: string;
  /** Bearer token of user `admin` (group system:masters). */
  token: string;
}

function openssl(dir: string, args: string[]): void {
  const r = Bun.spawnSync(["openssl", ...args], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) {
    throw new Error(`openssl ${args.slice(0, 2).join(" ")} failed: ${r.stderr.toString().trim()}`);
  }
}

/**
 * Generates a CA, a serving cert for 127.0.0.1/localhost (and the `kubernetes` Service's 10.0.0.1, which
 * pods of the real node dial), a client cert for `admin`
 * (O=system:masters), a service-account key pair and a token file, valid 7 days.
 * @throws Error naming the openssl step that failed (openssl missing: install Debian's `openssl`).
 */
export async function generatePki(dir: string): Promise<Pki> {
  if (!Bun.which("openssl")) throw new Error("openssl is missing: run `apt-get install -y openssl` and try again.");
  const ec = ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out"];
  openssl(dir, [...ec, "ca.key"]);
  openssl(dir, [
    "req",
    "-x509",
    "-new",
    "-key",
    "ca.key",
    "-subj",
    "/CN=tinyhost-test-ca",
    "-days",
    "7",
    "-out",
    "ca.crt",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  openssl(dir, [...ec, "apiserver.key"]);
  openssl(dir, ["req", "-new", "-key", "apiserver.key", "-subj", "/CN=localhost", "-out", "apiserver.csr"]);
  await Bun.write(join(dir, "srv.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost,IP:10.0.0.1,DNS:kubernetes.default.svc\nextendedKeyUsage=serverAuth\n");
  openssl(dir, [
    "x509",
    "-req",
    "-in",
    "apiserver.csr",
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-days",
    "7",
    "-extfile",
    "srv.ext",
    "-out",
    "apiserver.crt",
  ]);
  openssl(dir, ["genrsa", "-out", "sa.key", "2048"]);
  openssl(dir, ["rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub"]);
  openssl(dir, [...ec, "admin.key"]);
  openssl(dir, ["req", "-new", "-key", "admin.key", "-subj", "/CN=admin/O=system:masters", "-out", "admin.csr"]);
  await Bun.write(join(dir, "cli.ext"), "extendedKeyUsage=clientAuth\n");
  openssl(dir, [
    "x509",
    "-req",
    "-in",
    "admin.csr",
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-days",
    "7",
    "-extfile",
    "cli.ext",
    "-out",
    "admin.crt",
  ]);
  const token = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("hex");
  const tokenFile = join(dir, "tokens.csv");
  await Bun.write(tokenFile, `${token},admin,admin-uid,system:masters\n`);
  return {
    dir,
    caCert: join(dir, "ca.crt"),
    caKey: join(dir, "ca.key"),
    serverCert: join(dir, "apiserver.crt"),
    serverKey: join(dir, "apiserver.key"),
    saKey: join(dir, "sa.key"),
    saPub: join(dir, "sa.pub"),
    clientCert: join(dir, "admin.crt"),
    clientKey: join(dir, "admin.key"),
    tokenFile,
    token,
  };
}

/** The aggregation layer's credentials (Kubernetes docs "Configure the Aggregation Layer"). */
export interface FrontProxyPki {
  /** CA the apiserver tells extension apiservers to trust for proxied requests (`--requestheader-client-ca-file`). */
  caCert: string;
  /** The apiserver's client cert towards extension apiservers (`--proxy-client-cert-file`), CN {@link FRONT_PROXY_CLIENT}. */
  clientCert: string;
  clientKey: string;
}

/** CN of the front-proxy client cert, the one `--requestheader-allowed-names` lists. */
export const FRONT_PROXY_CLIENT = "front-proxy-client";

/**
 * Generates a second CA (front-proxy-ca, kept apart from the cluster CA as kubeadm does) and the
 * client cert the apiserver presents when it proxies a request to an extension apiserver (KEDA's
 * metrics adapter serving external.metrics.k8s.io), valid 7 days.
 * @throws Error naming the openssl step that failed.
 */
export async function generateFrontProxyPki(dir: string): Promise<FrontProxyPki> {
  const ec = ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out"];
  openssl(dir, [...ec, "front-proxy-ca.key"]);
  openssl(dir, [
    "req",
    "-x509",
    "-new",
    "-key",
    "front-proxy-ca.key",
    "-subj",
    "/CN=tinyhost-test-front-proxy-ca",
    "-days",
    "7",
    "-out",
    "front-proxy-ca.crt",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  openssl(dir, [...ec, "front-proxy-client.key"]);
  openssl(dir, ["req", "-new", "-key", "front-proxy-client.key", "-subj", `/CN=${FRONT_PROXY_CLIENT}`, "-out", "front-proxy-client.csr"]);
  await Bun.write(join(dir, "fp.ext"), "extendedKeyUsage=clientAuth\n");
  openssl(dir, [
    "x509",
    "-req",
    "-in",
    "front-proxy-client.csr",
    "-CA",
    "front-proxy-ca.crt",
    "-CAkey",
    "front-proxy-ca.key",
    "-CAcreateserial",
    "-days",
    "7",
    "-extfile",
    "fp.ext",
    "-out",
    "front-proxy-client.crt",
  ]);
  return { caCert: join(dir, "front-proxy-ca.crt"), clientCert: join(dir, "front-proxy-client.crt"), clientKey: join(dir, "front-proxy-client.key") };
}
