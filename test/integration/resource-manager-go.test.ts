/**
 * tinyhost's exposePort/disclosePort against the Go SDK's own (pkg/resource Manager, run by the Go
 * test tool test/go/expose) on the real kube-apiserver: in the normal case both leave the release
 * Service and Ingress identical, apart from tinyhost's ownership annotations; in the issue-14
 * cases the Go runtime's behaviour that docs/compatibility.md departs from is pinned here.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { getControlPlane, type ControlPlane } from "../support/control-plane.ts";
import { goTool } from "../support/go-tools.ts";
import type { KubeClient } from "../../src/k8s/client/index.ts";
import { INGRESS_RECORD_ANNOTATION, SERVICE_RECORD_ANNOTATION, type IngressRule } from "../../src/k8s/resources/index.ts";
import {
  GRPC_PORT,
  POD,
  SUFFIX,
  managerFor,
  ownClient,
  pathTo,
  releaseIn,
  releaseState,
  type ReleaseOptions,
  type ReleaseState,
} from "./resource-manager-release.ts";

let cp: ControlPlane;
let kube: KubeClient;
let tool: string;

beforeAll(async () => {
  [cp, tool] = await Promise.all([getControlPlane(), goTool("expose")]);
  kube = await ownClient(cp);
}, 900_000);

/** Runs the Go SDK's ExposePort (or DisclosePort with `disclose`) in namespace `ns`. */
async function goCall(
  ns: string,
  args: { port: number; hostnames?: string[]; auto?: string; disclose?: boolean },
): Promise<{ hostnames?: string[]; error?: string }> {
  const argv = [tool, "-kubeconfig", cp.tokenKubeconfig, "-namespace", ns, "-port", String(args.port)];
  if (args.auto) argv.push("-auto", args.auto);
  for (const h of args.hostnames ?? []) argv.push("-host", h);
  if (args.disclose) argv.push("-disclose");
  const proc = Bun.spawn(argv, { env: { HOSTNAME: POD, PATH: process.env.PATH ?? "" }, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`Go expose tool exited ${code}: ${err}`);
  return JSON.parse(out) as { hostnames?: string[]; error?: string };
}

/** The state without tinyhost's ownership annotations (the one deliberate addition). */
function withoutRecords(s: ReleaseState): ReleaseState {
  const strip = (a: Record<string, string>) =>
    Object.fromEntries(Object.entries(a).filter(([k]) => k !== SERVICE_RECORD_ANNOTATION && k !== INGRESS_RECORD_ANNOTATION));
  return { service: { ...s.service, annotations: strip(s.service.annotations) }, ingress: { ...s.ingress, annotations: strip(s.ingress.annotations) } };
}

/** Two identical releases: one for Go, one for tinyhost. */
async function twin(prefix: string, opts: ReleaseOptions = {}): Promise<[string, string]> {
  return Promise.all([releaseIn(cp, kube, `${prefix}-go`, opts), releaseIn(cp, kube, `${prefix}-th`, opts)]);
}

describe("the normal case is Go's", () => {
  test("exposePort of two ports and disclosePort of one leave the Service and Ingress exactly as Go's do", async () => {
    const [goNs, ourNs] = await twin("gocmp");
    const ours = managerFor(kube, ourNs);

    const goHosts = await goCall(goNs, { port: 8080, hostnames: ["shop.example.com", "api.example.com"], auto: "checkout" });
    const ourHosts = await ours.exposePort({ hostnames: ["shop.example.com", "api.example.com"], autoHostName: "checkout", port: 8080 });
    expect(goHosts).toEqual({ hostnames: ourHosts });
    expect(ourHosts).toEqual(["shop.example.com", "api.example.com", `checkout-${SUFFIX}`]);
    expect(withoutRecords(await releaseState(kube, ourNs))).toEqual(await releaseState(kube, goNs));

    await goCall(goNs, { port: 9090, hostnames: ["admin.example.com"] });
    await ours.exposePort({ hostnames: ["admin.example.com"], port: 9090 });
    const goBoth = await releaseState(kube, goNs);
    expect(withoutRecords(await releaseState(kube, ourNs))).toEqual(goBoth);
    expect(goBoth.service.ports).toEqual([
      GRPC_PORT,
      { name: "port8080", port: 8080, targetPort: 8080, protocol: "TCP" },
      { name: "port9090", port: 9090, targetPort: 9090, protocol: "TCP" },
    ] as never);

    expect(await goCall(goNs, { port: 8080, disclose: true })).toEqual({});
    await ours.disclosePort(8080);
    const goAfter = await releaseState(kube, goNs);
    expect(withoutRecords(await releaseState(kube, ourNs))).toEqual(goAfter);
    expect(goAfter.ingress.rules).toEqual([{ host: "admin.example.com", http: { paths: [pathTo("/", 9090)] } }]);
    // The only difference: tinyhost's records of what it still owns.
    expect((await releaseState(kube, ourNs)).service.annotations).toEqual({ [SERVICE_RECORD_ANNOTATION]: '{"9090":"own"}' });
  });
});

describe("what the Go runtime does in the issue-14 cases (the differences docs/compatibility.md records)", () => {
  test("Go reuses a foreign tcp-80 (80/TCP → 8080), then its DisclosePort deletes it, a foreign rule and a whole shared TLS entry", async () => {
    const foreign: IngressRule = { host: "api.example.com", http: { paths: [pathTo("/v1", 80)] } };
    const wildcard = { hosts: ["api.example.com", `app80-${SUFFIX}`], secretName: "wildcard-tls" };
    const tcp80 = { name: "tcp-80", port: 80, targetPort: 8080, protocol: "TCP" as const };
    const goNs = await releaseIn(cp, kube, "gotcp80", { ports: [GRPC_PORT, tcp80], rules: [foreign], tls: [wildcard] });
    expect(await goCall(goNs, { port: 80, auto: "app80" })).toEqual({ hostnames: [`app80-${SUFFIX}`] });
    const exposed = await releaseState(kube, goNs);
    expect(exposed.service.ports).toEqual([GRPC_PORT, tcp80] as never); // reused: traffic goes to 8080
    await goCall(goNs, { port: 80, disclose: true });
    const after = await releaseState(kube, goNs);
    expect(after.service.ports).toEqual([GRPC_PORT] as never);
    expect(after.ingress.rules).toEqual([]);
    expect(after.ingress.tls).toEqual([]);
  });

  test("Go's second ExposePort on a hostname re-points its / and the first port loses its route", async () => {
    const goNs = await releaseIn(cp, kube, "gosamehost");
    await goCall(goNs, { port: 8080, hostnames: ["shared.example.com"] });
    await goCall(goNs, { port: 8081, hostnames: ["shared.example.com"] });
    expect((await releaseState(kube, goNs)).ingress.rules).toEqual([{ host: "shared.example.com", http: { paths: [pathTo("/", 8081)] } }]);
  });

  test("Go re-points an existing shop rule's whole HTTP section, dropping / → frontend and /static → cdn", async () => {
    const shop: IngressRule = { host: "shop.example.com", http: { paths: [pathTo("/", 80, "frontend"), pathTo("/static", 80, "cdn")] } };
    const goNs = await releaseIn(cp, kube, "goshop", { rules: [shop] });
    await goCall(goNs, { port: 8080, hostnames: ["shop.example.com"] });
    expect((await releaseState(kube, goNs)).ingress.rules).toEqual([{ host: "shop.example.com", http: { paths: [pathTo("/", 8080)] } }]);
  });
});
