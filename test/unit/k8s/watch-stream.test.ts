import { expect, test } from "bun:test";
import { KubeApiError, KubeDecodeError, decodeWatchEvents, isGone, type WatchEvent } from "../../../src/k8s/client/index.ts";

const where = { verb: "WATCH", path: "/api/v1/configmaps" };
type Obj = { metadata: { name?: string; resourceVersion?: string } };

async function* chunks(...parts: (string | Uint8Array)[]): AsyncGenerator<string | Uint8Array> {
  for (const p of parts) yield p;
}

async function collect(src: AsyncIterable<string | Uint8Array>): Promise<WatchEvent<Obj>[]> {
  const out: WatchEvent<Obj>[] = [];
  for await (const ev of decodeWatchEvents<Obj>(src, where)) out.push(ev);
  return out;
}

/** The object metadata of a non-ERROR event. */
const meta = (e: WatchEvent<Obj> | undefined) => (e && e.type !== "ERROR" ? e.object.metadata : undefined);

const line = (type: string, name: string, rv: string) => JSON.stringify({ type, object: { metadata: { name, resourceVersion: rv } } }) + "\n";

test("a line split across chunks is reassembled", async () => {
  const text = line("ADDED", "a", "1");
  const events = await collect(chunks(text.slice(0, 7), text.slice(7, 30), text.slice(30)));
  expect(events).toEqual([{ type: "ADDED", object: { metadata: { name: "a", resourceVersion: "1" } } }]);
});

test("several lines in one chunk become several events, in order", async () => {
  const events = await collect(chunks(line("ADDED", "a", "1") + line("MODIFIED", "a", "2") + line("DELETED", "a", "3")));
  expect(events.map((e) => `${e.type}:${meta(e)?.resourceVersion}`)).toEqual(["ADDED:1", "MODIFIED:2", "DELETED:3"]);
});

test("a multi-byte character split between byte chunks survives", async () => {
  const bytes = new TextEncoder().encode(line("ADDED", "grüße", "1"));
  const cut = bytes.indexOf(0xc3) + 1; // inside the two-byte "ü"
  const events = await collect(chunks(bytes.slice(0, cut), bytes.slice(cut)));
  expect(meta(events[0])?.name).toBe("grüße");
});

test("a final line without a newline is still delivered", async () => {
  const events = await collect(chunks(line("ADDED", "a", "1").trimEnd()));
  expect(events).toHaveLength(1);
});

test("BOOKMARK events are delivered with their resourceVersion", async () => {
  const events = await collect(
    chunks(JSON.stringify({ type: "BOOKMARK", object: { kind: "ConfigMap", apiVersion: "v1", metadata: { resourceVersion: "77" } } }) + "\n"),
  );
  expect(events[0]?.type).toBe("BOOKMARK");
  expect(meta(events[0])?.resourceVersion).toBe("77");
});

test("an ERROR event with code 410 is thrown as KubeApiError reason Gone", async () => {
  const expired = {
    type: "ERROR",
    object: { kind: "Status", apiVersion: "v1", status: "Failure", message: "too old resource version: 1 (5)", reason: "Expired", code: 410 },
  };
  const seen: string[] = [];
  const err = await (async () => {
    for await (const ev of decodeWatchEvents<Obj>(chunks(line("ADDED", "a", "1") + JSON.stringify(expired) + "\n"), where)) seen.push(ev.type);
  })().catch((e: unknown) => e);
  expect(seen).toEqual(["ADDED"]);
  expect(err).toBeInstanceOf(KubeApiError);
  expect(isGone(err)).toBe(true);
  expect((err as KubeApiError).reason).toBe("Gone");
  expect((err as KubeApiError).message).toContain("too old resource version");
});

test("an ERROR event with another code is yielded with its Status", async () => {
  const events = await collect(
    chunks(JSON.stringify({ type: "ERROR", object: { kind: "Status", code: 500, reason: "InternalError", message: "boom" } }) + "\n"),
  );
  expect(events).toEqual([{ type: "ERROR", object: { kind: "Status", code: 500, reason: "InternalError", message: "boom" } }]);
});

test("a line that is not JSON fails with KubeDecodeError quoting it", async () => {
  const err = await collect(chunks("{not json\n")).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(KubeDecodeError);
  expect((err as Error).message).toContain("{not json");
});

test("an unknown event type fails with KubeDecodeError", async () => {
  const err = await collect(chunks(JSON.stringify({ type: "RENAMED", object: {} }) + "\n")).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(KubeDecodeError);
});

test("blank lines are skipped", async () => {
  const events = await collect(chunks("\n\n" + line("ADDED", "a", "1") + "\r\n"));
  expect(events).toHaveLength(1);
});
