/**
 * chat (common-module chat): the cases of its Go tests (chat_test.go) through the real runner —
 * composer messages, say/ask/answer/clear, FIFO and stale answers, per-request forms, expiry onto
 * the error port, history cap, secrets masked in the thread, a restarted pod showing the same
 * conversation — and what the dashboard reads: the `_control` schema and data.
 */
import { afterEach, describe, expect, test } from "bun:test";
import chat, { type ChatSelf, type ThreadEntry } from "../../../components/chat.ts";
import { FakeCluster, waitFor, type Pod } from "./leader-pods.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

const clusters: FakeCluster[] = [];
afterEach(async () => {
  await Promise.all(clusters.splice(0).map((c) => c.shutdown()));
});

/** A fake clock every new instance uses (the Go tests' `c.now` seam). */
const clock = { t: Date.parse("2026-07-30T10:00:00Z") };
const fakeClock = { now: () => new Date(clock.t), sleepUntil: async () => true };

async function leaderPod(settings?: unknown): Promise<Pod> {
  const c = new FakeCluster(chat, settings, (self) => void ((self as ChatSelf).clock = fakeClock as unknown as ChatSelf["clock"]));
  clusters.push(c);
  // the capture edges come from the default ports; the error port exists only with its setting
  c.node.spec.edges!.push({ id: "capture-error", port: "error", to: "test.capture.sink-0:error" });
  const pod = c.newPod({ leader: true });
  await pod.reconcile();
  return pod;
}

const control = (pod: Pod) =>
  pod.portValue("_control") as {
    thread: ThreadEntry[] | null;
    placeholder: string;
    hideComposer?: boolean;
    pendingQuestion?: { qid: string; form: any; context: unknown; waiting: number };
  };
const thread = (pod: Pod) => control(pod).thread ?? [];
const stateJson = (pod: Pod, key: string) => {
  const b64 = pod.cluster.metadata[`_state/${key}`];
  return b64 === undefined ? undefined : JSON.parse(Buffer.from(b64, "base64").toString("utf8"));
};

async function answerHead(pod: Pod, values: Record<string, unknown>): Promise<void> {
  const pending = control(pod).pendingQuestion;
  expect(pending).toBeDefined();
  await pod.send("_control", { _kind: "answer", _qid: pending!.qid, ...values });
}

describe("chat: human → flow", () => {
  test("a composer message lands pending in the thread and emits {requestId, text} on message", async () => {
    const pod = await leaderPod();
    await pod.send("_control", { _kind: "message", text: "hello agent" });
    await waitFor("message emit", () => pod.on("message").length === 1);
    const msg = pod.on("message")[0] as { requestId: string; text: string };
    expect(msg).toEqual({ requestId: expect.stringMatching(/^m-\d+-[0-9a-f]{8}$/), text: "hello agent" });
    expect(thread(pod)).toEqual([{ id: msg.requestId, kind: "message", text: "hello agent", at: "2026-07-30T10:00:00Z", pending: true }]);
  });

  test("an empty composer message and a replayed render do nothing; a follower ignores the widget", async () => {
    const pod = await leaderPod();
    await pod.send("_control", { _kind: "message", text: "" });
    await pod.send("_control", { thread: [], placeholder: "" });
    const follower = pod.cluster.newPod({ leader: false });
    await follower.reconcile();
    await follower.send("_control", { _kind: "message", text: "from a follower" });
    await Bun.sleep(30);
    expect(pod.on("message")).toEqual([]);
    expect(follower.on("message")).toEqual([]);
    expect(thread(pod)).toEqual([]);
  });
});

describe("chat: flow → human", () => {
  test("say with the message's requestId marks it answered and adds an assistant reply", async () => {
    const pod = await leaderPod();
    await pod.send("_control", { _kind: "message", text: "question" });
    await waitFor("message emit", () => pod.on("message").length === 1);
    const { requestId } = pod.on("message")[0] as { requestId: string };
    expect((await pod.send("say", { requestId, text: "the answer" })).kind).not.toBe("fail");
    const t = thread(pod);
    expect(t).toHaveLength(2);
    expect(t[0]!.pending).toBeUndefined();
    expect(t[1]).toMatchObject({ kind: "reply", role: "assistant", text: "the answer" });
  });

  test("an unsolicited say still lands, with its role", async () => {
    const pod = await leaderPod();
    await pod.send("say", { requestId: "nope", role: "error", text: "boom" });
    expect(thread(pod)).toMatchObject([{ kind: "reply", role: "error", text: "boom" }]);
  });

  test("historyLimit caps the thread, keeping the newest", async () => {
    const pod = await leaderPod({ historyLimit: 3, enableErrorPort: false });
    for (let i = 0; i < 5; i++) await pod.send("say", { text: `m${i}` });
    expect(thread(pod).map((e) => e.text)).toEqual(["m2", "m3", "m4"]);
  });
});

describe("chat: questions", () => {
  test("ask shows a question card with the default Approve/Deny form; the answer emits {questionId, values, context}", async () => {
    const pod = await leaderPod();
    await pod.send("ask", { context: { pod: "api-1" } });
    const pending = control(pod).pendingQuestion!;
    expect(pending).toMatchObject({ qid: expect.stringMatching(/^q-/), context: { pod: "api-1" }, waiting: 0 });
    expect(Object.keys(pending.form.properties)).toEqual(["approve", "deny"]);
    await answerHead(pod, { approve: true });
    await waitFor("answer emit", () => pod.on("answer").length === 1);
    expect(pod.on("answer")[0]).toEqual({ questionId: pending.qid, values: { approve: true }, context: { pod: "api-1" } });
    expect(control(pod).pendingQuestion).toBeUndefined();
    const t = thread(pod);
    expect(t.map((e) => [e.kind, e.pending ?? false])).toEqual([
      ["question", false],
      ["answer", false],
    ]);
  });

  test("questions queue FIFO; a stale submission (another qid) consumes nothing; a submission without a pressed button neither", async () => {
    const pod = await leaderPod();
    await pod.send("ask", { context: "first" });
    await pod.send("ask", { context: "second" });
    expect(control(pod).pendingQuestion).toMatchObject({ context: "first", waiting: 1 });
    await pod.send("_control", { _kind: "answer", _qid: "q-stale", approve: true });
    await pod.send("_control", { _kind: "answer", _qid: control(pod).pendingQuestion!.qid, approve: false });
    await Bun.sleep(30);
    expect(pod.on("answer")).toEqual([]);
    await answerHead(pod, { approve: true });
    await waitFor("answer emit", () => pod.on("answer").length === 1);
    expect(pod.on("answer")[0]).toMatchObject({ context: "first" });
    expect(control(pod).pendingQuestion).toMatchObject({ context: "second", waiting: 0 });
  });

  test("a request's own form overrides the settings form for that question; an invalid one fails the hop", async () => {
    const pod = await leaderPod();
    const form = '{"type":"object","properties":{"replicas":{"type":"number","title":"Replicas"},"ok":{"type":"boolean","format":"button"}}}';
    await pod.send("ask", { context: "ctx", form });
    expect(control(pod).pendingQuestion!.form.properties.replicas).toEqual({ type: "number", title: "Replicas" });
    const bad = await pod.send("ask", { form: "{not json" });
    expect(bad.kind === "fail" && bad.error.message).toContain("ask form is not valid JSON");
  });

  test("a question past timeoutSeconds expires onto error with a note in the thread, on the next message", async () => {
    const pod = await leaderPod({ timeoutSeconds: 10, enableErrorPort: true });
    await pod.send("ask", { context: "stale-ctx" });
    clock.t += 11_000;
    try {
      await pod.send("ask", { context: "fresh-ctx" });
      await waitFor("error emit", () => pod.on("error").length === 1);
      expect(pod.on("error")[0]).toEqual({ context: "stale-ctx", error: "question expired after 10s" });
      expect(control(pod).pendingQuestion).toMatchObject({ context: "fresh-ctx", waiting: 0 });
      expect(thread(pod).some((e) => e.kind === "note" && e.role === "error" && e.text === "question expired after 10s")).toBe(true);
    } finally {
      clock.t -= 11_000;
    }
  });

  test("an idle question expires on its own on the leader (a timer, not only the next message)", async () => {
    const pod = await leaderPod({ timeoutSeconds: 1, enableErrorPort: true });
    const real = { now: () => new Date(), sleepUntil: async () => true };
    (pod.scheduler.runner(pod.cluster.node.metadata.name)!.instance.self as ChatSelf).clock = real as unknown as ChatSelf["clock"];
    await pod.send("ask", { context: "idle" });
    await waitFor("expiry by timer", () => pod.on("error").length === 1, 5000);
    expect(pod.on("error")[0]).toEqual({ context: "idle", error: "question expired after 1s" });
    await waitFor("card gone", () => control(pod).pendingQuestion === undefined);
  });
});

describe("chat: clear, secrets, restarts", () => {
  test("clear wipes the thread and drops pending questions without expiring them; twice is a no-op", async () => {
    const pod = await leaderPod({ timeoutSeconds: 1, enableErrorPort: true });
    await pod.send("say", { text: "remember this" });
    await pod.send("ask", { context: "under-review" });
    expect((await pod.send("clear", { context: "wipe" })).kind).not.toBe("fail");
    expect((await pod.send("clear", {})).kind).not.toBe("fail");
    expect(control(pod)).toMatchObject({ thread: null });
    expect(control(pod).pendingQuestion).toBeUndefined();
    await waitFor("state keys gone", () => stateJson(pod, "thread") === undefined && stateJson(pod, "queue") === undefined);
    expect(pod.on("error")).toEqual([]);
  });

  test("writeOnly and password fields are masked in the thread and the widget, raw on answer", async () => {
    const pod = await leaderPod();
    const form = JSON.stringify({
      type: "object",
      properties: {
        token: { type: "string", writeOnly: true },
        key: { type: "string", format: "password" },
        note: { type: "string" },
        save: { type: "boolean", format: "button" },
      },
    });
    await pod.send("ask", { form });
    await answerHead(pod, { token: "sk-live-abc123", key: "hunter2", note: "prod key", save: true });
    await waitFor("answer emit", () => pod.on("answer").length === 1);
    expect((pod.on("answer")[0] as { values: unknown }).values).toEqual({ token: "sk-live-abc123", key: "hunter2", note: "prod key", save: true });
    await waitFor("state written", () => stateJson(pod, "thread") !== undefined);
    const entry = (stateJson(pod, "thread") as ThreadEntry[]).find((e) => e.kind === "answer")!;
    expect(entry.values).toEqual({ token: "••••••", key: "••••••", note: "prod key", save: true });
    expect(thread(pod).find((e) => e.kind === "answer")!.values).toMatchObject({ key: "••••••", note: "prod key" });
    expect(JSON.stringify(pod.cluster.node.status)).not.toContain("sk-live-abc123");
    expect(Buffer.from(pod.cluster.metadata["_state/thread"]!, "base64").toString()).not.toContain("hunter2");
  });

  test("a restarted pod publishes the same conversation from node state (_state/thread, _state/queue)", async () => {
    const pod = await leaderPod({ placeholder: "Ask…", enableErrorPort: false });
    await pod.send("_control", { _kind: "message", text: "before restart" });
    await pod.send("ask", { context: "pending-q" });
    await waitFor("state written", () => stateJson(pod, "queue")?.length === 1 && stateJson(pod, "thread")?.length === 2);
    expect(stateJson(pod, "queue")[0]).toMatchObject({ id: expect.stringMatching(/^q-/), context: "pending-q", askedAt: "2026-07-30T10:00:00Z" });
    await pod.shutdown();
    const next = pod.cluster.newPod({ leader: true });
    await next.reconcile();
    expect(control(next).thread!.map((e) => e.kind)).toEqual(["message", "question"]);
    expect(control(next)).toMatchObject({ placeholder: "Ask…", pendingQuestion: { context: "pending-q", waiting: 0 } });
    // and the question asked before the restart can be answered on the new pod
    await answerHead(next, { approve: true });
    await waitFor("answer emit", () => next.on("answer").length === 1);
    expect(next.on("answer")[0]).toMatchObject({ context: "pending-q", values: { approve: true } });
  });

  test("settings with an invalid form fail the reconcile naming the field", async () => {
    const c = new FakeCluster(chat, { form: "{oops", enableErrorPort: false });
    clusters.push(c);
    const status = await c.newPod({ leader: true }).reconcile();
    expect(status.error).toBe(true);
    expect(status.status).toContain("form is not valid JSON");
  });
});

describe("chat: what the dashboard reads", () => {
  test("_control publishes the authored chat schema (root format chat) and the hideComposer flag in form mode", async () => {
    const pod = await leaderPod({ hideComposer: true, placeholder: "Ask the agent…", enableErrorPort: false });
    const port = pod.scheduler.readStatus(pod.cluster.node.metadata.name)!.ports!.find((p) => p.name === "_control")!;
    const schema = JSON.parse(Buffer.from(port.schema, "base64").toString());
    expect(schema).toMatchObject({
      type: "object",
      format: "chat",
      properties: { _kind: { readonly: true }, text: { format: "textarea" }, _qid: { readonly: true } },
    });
    expect(control(pod)).toEqual({ thread: null, placeholder: "Ask the agent…", hideComposer: true });
    expect(port.source).toBe(true);
  });
});
