/**
 * `[[secret:name/key]]` placeholders against a real apiserver and real RBAC (Go pkg/secret + runner
 * `secretResolveTTL`, SDK v0.13.125): the module reads Secrets with a ServiceAccount bound to
 * exactly the rule `tools rbac-values` emits for `requirements.secrets.names` (get, pinned to the
 * names), so a declared Secret resolves and rotates, and any other Secret is forbidden — with a
 * node error naming the placeholder each time.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { defineComponent, target, Type } from "tinyhost";
import { connectControlPlane, type ControlPlane } from "../support/control-plane.ts";
import { KubeApiError, KubeClient, roleBindings, roles, secrets, serviceAccounts, type PolicyRule } from "../../src/k8s/client/index.ts";
import { chartRbacValues } from "../../src/provision/rbac-values.ts";
import { Scheduler } from "../../src/runtime/scheduler/index.ts";
import { kubeSecretSource } from "../../src/runtime/secrets/index.ts";
import { forgetSecretValues, maskSecretValues } from "../../src/telemetry/secret-values.ts";
import { makeNode, MODULE } from "../support/fake-components.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

let cp: ControlPlane;
let kube: KubeClient;

beforeAll(async () => void ({ cp, kube } = await connectControlPlane()), 900_000);

/** A client authenticated as a new ServiceAccount bound to a Role with `rules`, once the binding is in effect. */
async function serviceAccountClient(ns: string, name: string, rules: PolicyRule[], probe: string): Promise<KubeClient> {
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
  for (let i = 0; ; i++) {
    try {
      await client.get(secrets, probe, ns);
      return client;
    } catch (e) {
      if (i > 100 || !(e instanceof KubeApiError) || e.status !== 403) throw e;
      await Bun.sleep(100);
    }
  }
}

const b64 = (s: string) => Buffer.from(s).toString("base64");

function recorder(seen: string[]) {
  return defineComponent({
    info: { name: "secrec", description: "S", info: "" },
    requirements: { secrets: { names: ["api-creds"] } },
    ports: () => [target("_settings", Type.Object({ token: Type.String() }), { default: { token: "" } })],
    onSettings(_ctx, s) {
      seen.push(s.token);
    },
    handle: () => undefined,
  });
}

describe("secret placeholders on a real apiserver", () => {
  test("a declared Secret resolves and a rotation is picked up after the TTL; another Secret is forbidden; a missing key is named", async () => {
    forgetSecretValues();
    const ns = await cp.newNamespace("secrets");
    await kube.create(secrets, { metadata: { name: "api-creds" }, data: { token: b64("tok-first-1") } }, { namespace: ns });
    await kube.create(secrets, { metadata: { name: "not-ours" }, data: { token: b64("other-value") } }, { namespace: ns });
    const seen: string[] = [];
    const component = recorder(seen);
    // The module's RBAC is what `tools rbac-values` derives from the component's requirements.
    const rules = chartRbacValues([{ name: "secrec", usesClient: false, requirements: component.requirements! }])!.rbac.extraNamespacedRules!;
    expect(rules).toEqual([{ apiGroups: [""], resources: ["secrets"], verbs: ["get"], resourceNames: ["api-creds"] }]);
    const client = await serviceAccountClient(ns, "module", rules, "api-creds");

    const s = new Scheduler({ module: MODULE, secrets: kubeSecretSource(client, ns), secretResolveTtlMs: 200 });
    s.install(component);
    const node = (token: string, id = "n") => makeNode(id, "secrec", { ports: [{ from: "", port: "_settings", config: { token } }] });
    const n = node("[[secret:api-creds/token]]");
    expect((await s.update(n)).error).toBe(false);
    expect(seen).toEqual(["tok-first-1"]);
    expect(maskSecretValues("got tok-first-1")).toBe("got <redacted>");

    const current = await kube.get(secrets, "api-creds", ns);
    await kube.update(secrets, { ...current, data: { token: b64("tok-second-2") } }, { namespace: ns });
    const deadline = Date.now() + 20_000;
    while (!seen.includes("tok-second-2")) {
      if (Date.now() > deadline) throw new Error(`rotation not delivered within 20 s; seen ${JSON.stringify(seen)}`);
      await s.update(n); // a reconcile: re-delivers once the TTL passed
      await Bun.sleep(50);
    }
    expect(seen[0]).toBe("tok-first-1");

    const forbidden = await s.update(node("[[secret:not-ours/token]]", "m"));
    expect(forbidden.error).toBe(true);
    expect(forbidden.status).toStartWith('settings: [[secret:not-ours/token]]: cannot read Secret "not-ours" in namespace "' + ns + '" (forbidden');

    const noKey = await s.update(node("[[secret:api-creds/password]]", "k"));
    expect(noKey.status).toBe(`settings: [[secret:api-creds/password]]: key "password" not found in Secret "api-creds" in namespace "${ns}" (its keys: token)`);
    await s.stopAll();
  }, 60_000);
});
