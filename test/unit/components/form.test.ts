/**
 * form (common-module form): the cases of its Go tests (form_test.go) through the real runner —
 * Submit emits the filled values (or the settings' fields), a non-submit control does nothing,
 * Result persists in node state and shows in the widget, Prefill fills the fields, a new Submit
 * clears the old result — plus a restarted pod and a follower.
 */
import { afterEach, describe, expect, test } from "bun:test";
import form from "../../../components/form.ts";
import { FakeCluster, waitFor, type Pod } from "./leader-pods.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

const clusters: FakeCluster[] = [];
afterEach(async () => {
  await Promise.all(clusters.splice(0).map((c) => c.shutdown()));
});

async function pod(settings?: unknown, leader = true): Promise<Pod> {
  const c = new FakeCluster(form, settings);
  clusters.push(c);
  const p = c.newPod({ leader });
  await p.reconcile();
  return p;
}

const control = (p: Pod) => p.portValue("_control") as { context: unknown; submit: boolean; result?: string };
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

describe("form", () => {
  test("Submit emits the filled values on out, detached", async () => {
    const p = await pod({ context: { apiKey: "" } });
    expect((await p.send("_control", { context: { apiKey: "sk-test" }, submit: true })).kind).not.toBe("fail");
    await waitFor("out emit", () => p.on("out").length === 1);
    expect(p.on("out")).toEqual([{ apiKey: "sk-test" }]);
  });

  test("Submit without values sends the settings' fields", async () => {
    const p = await pod({ context: { apiKey: "from-settings" } });
    await p.send("_control", { submit: true });
    await waitFor("out emit", () => p.on("out").length === 1);
    expect(p.on("out")).toEqual([{ apiKey: "from-settings" }]);
  });

  test("a control without Submit (a keystroke sync) and a Submit on a follower emit nothing", async () => {
    const p = await pod({ context: {} });
    await p.send("_control", { context: { apiKey: "typing" } });
    const follower = p.cluster.newPod({ leader: false });
    await follower.reconcile();
    await follower.send("_control", { context: { apiKey: "x" }, submit: true });
    await Bun.sleep(30);
    expect([...p.on("out"), ...follower.on("out")]).toEqual([]);
  });

  test("Result persists as _state/result and shows under the button", async () => {
    const p = await pod({ context: { apiKey: "" } });
    expect((await p.send("result", { text: "saved ••••1234 ✓" })).kind).not.toBe("fail");
    expect(control(p)).toEqual({ context: { apiKey: "" }, submit: false, result: "saved ••••1234 ✓" });
    await waitFor("state patch", () => p.cluster.metadata["_state/result"] === b64("saved ••••1234 ✓"));
  });

  test("Prefill puts the flow's values into the fields, persisted as JSON in _state/prefill", async () => {
    const p = await pod({ context: { apiKey: "" } });
    // (a credential-looking field such as apiKey is masked in every published status; plan is not)
    await p.send("result", { text: "saved ✓", prefill: { plan: "pro" } });
    expect(control(p)).toEqual({ context: { plan: "pro" }, submit: false, result: "saved ✓" });
    await waitFor("state patch", () => p.cluster.metadata["_state/prefill"] === b64('{"plan":"pro"}'));
  });

  test("a new Submit clears the previous result while it runs", async () => {
    const p = await pod({ context: { apiKey: "" } });
    await p.send("result", { text: "saved ••••1234 ✓" });
    await waitFor("state patch", () => "_state/result" in p.cluster.metadata);
    await p.send("_control", { context: { apiKey: "sk-new" }, submit: true });
    expect(control(p).result).toBeUndefined();
    await waitFor("out emit", () => p.on("out").length === 1);
    await waitFor("result deleted", () => !("_state/result" in p.cluster.metadata));
  });

  test("a restarted pod and another replica show the persisted result and prefill", async () => {
    const p = await pod({ context: { apiKey: "" } });
    await p.send("result", { text: "key saved", prefill: { plan: "team" } });
    await waitFor("state patch", () => "_state/prefill" in p.cluster.metadata && "_state/result" in p.cluster.metadata);
    const other = p.cluster.newPod({ leader: false });
    await other.reconcile();
    expect(control(other)).toEqual({ context: { plan: "team" }, submit: false, result: "key saved" });
    await p.shutdown();
    const next = p.cluster.newPod({ leader: true });
    await next.reconcile();
    expect(control(next)).toEqual({ context: { plan: "team" }, submit: false, result: "key saved" });
  });

  test("a result without text fails the hop naming the field", async () => {
    const p = await pod();
    const r = await p.send("result", { text: 5 });
    expect(r.kind === "fail" && r.error.message).toContain("$.text");
  });
});
