// display: the cases of Go's common-module components/display/display_test.go (markdown control,
// verbatim text, survives a recreate, authored text first, runtime text wins), plus what the
// dashboard reads across pods and the state budget.
import { describe, expect, test } from "bun:test";
import { testComponent } from "tinyhost";
import display from "../../../components/display.ts";
import { clusterFactory, waitFor } from "./leader-pods.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

const cluster = clusterFactory(display);

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const control = (pod: { portValue(p: string): unknown }) => (pod.portValue("_control") as { text: string }).text;

describe("display ports", () => {
  test("Go's names, labels and positions; tagged dashboard", () => {
    expect(display.info).toMatchObject({ name: "display", description: "Display", tags: ["SDK", "dashboard"] });
    expect(display.ports().map((p) => [p.name, p.label, p.source, p.position, p.configuration])).toEqual([
      ["in", "In", false, "left", { text: "" }],
      ["_control", "Control", true, "top", { text: "" }],
      ["_settings", "Settings", false, "top", { text: "" }],
    ]);
  });

  test("the control port asks the editor to render markdown, read-only (TestControlPortAsksForMarkdown)", () => {
    const schema = JSON.parse(JSON.stringify(display.ports().find((p) => p.name === "_control")!.schema));
    expect(schema.properties.text).toMatchObject({ type: "string", format: "markdown", readonly: true });
  });
});

describe("display", () => {
  test("stores the text verbatim in _state/text and shows it on _control; a sink (TestDisplayStoresTextVerbatim)", async () => {
    const c = cluster();
    const pod = c.newPod({ leader: true });
    await pod.reconcile();
    const text = "All 8 pods healthy\n\n| pod | ok |\n|---|---|\n| <b>a</b> | ✓ |";
    expect(await pod.send("in", { text })).toEqual({ kind: "empty" });
    expect(control(pod)).toBe(text);
    await waitFor("state written", () => c.metadata["_state/text"] === b64(text));
    // What the dashboard widget reads: the _control port's configuration in the node's status.
    const published = c.node.status?.ports?.find((p) => p.name === "_control");
    expect(JSON.parse(Buffer.from(published!.configuration, "base64").toString())).toEqual({ text });
    expect(pod.emitted).toEqual([]);
  });

  test("the text outlives the pod that received it (TestDisplayTextSurvivesInstanceRecreate)", async () => {
    const c = cluster();
    const pod1 = c.newPod({ leader: true });
    await pod1.reconcile();
    await pod1.send("in", { text: "readme" });
    await waitFor("state written", () => c.metadata["_state/text"] !== undefined);
    await pod1.shutdown();
    const pod2 = c.newPod({ leader: true });
    await pod2.reconcile();
    expect(control(pod2)).toBe("readme");
  });

  test("shows the authored settings text before any message (TestDisplayShowsAuthoredTextBeforeAnyMessage, TestControlPortCarriesAuthoredText)", async () => {
    const h = await testComponent(display, { settings: { text: "### Pod Watch\n\nWhat this agent does." } });
    const ports = h.status().ports!;
    const value = (name: string) => JSON.parse(Buffer.from(ports.find((p) => p.name === name)!.configuration, "base64").toString());
    expect(value("_control")).toEqual({ text: "### Pod Watch\n\nWhat this agent does." });
    expect(value("_settings")).toEqual({ text: "### Pod Watch\n\nWhat this agent does." });
    await h.stop();
  });

  test("a message overrides the authored text, also after a restart (TestDisplayMessageOverridesAuthoredText)", async () => {
    const c = cluster({ text: "placeholder" });
    const pod1 = c.newPod({ leader: true });
    await pod1.reconcile();
    expect(control(pod1)).toBe("placeholder");
    await pod1.send("in", { text: "3 pods unhealthy" });
    expect(control(pod1)).toBe("3 pods unhealthy");
    await waitFor("state written", () => c.metadata["_state/text"] !== undefined);
    await pod1.shutdown();
    const pod2 = c.newPod({ leader: true });
    await pod2.reconcile();
    expect(control(pod2)).toBe("3 pods unhealthy");
  });

  test("an empty text is a text: it replaces the placeholder", async () => {
    const c = cluster({ text: "placeholder" });
    const pod = c.newPod({ leader: true });
    await pod.reconcile();
    await pod.send("in", {});
    expect(control(pod)).toBe("");
  });

  test("a text shown on one replica reaches the other's published control after its reconcile", async () => {
    const c = cluster({ text: "placeholder" });
    const a = c.newPod({ leader: true });
    const b = c.newPod({ leader: false });
    await a.reconcile();
    await b.reconcile();
    await a.send("in", { text: "from pod a" });
    await waitFor("state written", () => c.metadata["_state/text"] === b64("from pod a"));
    expect(control(b)).toBe("placeholder");
    await b.reconcile(); // the watch delivers the status change
    await waitFor("pod b shows it", () => control(b) === "from pod a");
  });

  test("a text the 900 KiB state budget cannot hold fails the hop and keeps the previous text", async () => {
    const c = cluster();
    const pod = c.newPod({ leader: true });
    await pod.reconcile();
    await pod.send("in", { text: "small" });
    const r = await pod.send("in", { text: "x".repeat(700 * 1024) });
    expect(r.kind === "fail" && r.error.message).toStartWith("persist text: ");
    expect(r.kind === "fail" && r.error.message).toContain("over the 921600 byte cap");
    expect(control(pod)).toBe("small");
  });
});
