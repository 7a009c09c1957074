/**
 * Decodes a watch response body: newline-delimited JSON, one `{type, object}` per line
 * (Kubernetes docs, "API Concepts › Efficient detection of changes"). Chunks may split a line or
 * carry several; the decoder does not care.
 */
import { KubeApiError, KubeDecodeError, isStatus } from "./errors.ts";
import type { KubeStatus, WatchEvent, WatchEventType } from "./types.ts";

const TYPES: ReadonlySet<string> = new Set<WatchEventType>(["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"]);

/**
 * Turns a stream of body chunks into watch events.
 * @param chunks - the response body (bytes or text), in arrival order.
 * @param where - `<VERB> <path>` of the watch, for error messages.
 * @returns events in order; ends when the stream ends.
 * @throws KubeApiError (status 410, reason `Gone`) on an ERROR event whose Status has code 410 —
 *   the resourceVersion is too old and the caller must relist.
 * @throws KubeDecodeError on a line that is not JSON or not a `{type, object}` event.
 */
export async function* decodeWatchEvents<T>(chunks: AsyncIterable<Uint8Array | string>, where: { verb: string; path: string }): AsyncGenerator<WatchEvent<T>> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of chunks) {
    buffered += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    let newline = buffered.indexOf("\n");
    while (newline >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      const event = parseWatchLine<T>(line, where);
      if (event) yield event;
      newline = buffered.indexOf("\n");
    }
  }
  buffered += decoder.decode();
  const event = parseWatchLine<T>(buffered, where);
  if (event) yield event;
}

/**
 * Parses one line of a watch stream.
 * @returns the event, or undefined for a blank line.
 * @throws see {@link decodeWatchEvents}.
 */
export function parseWatchLine<T>(line: string, where: { verb: string; path: string }): WatchEvent<T> | undefined {
  const text = line.trim();
  if (!text) return undefined;
  const what = `${where.verb} ${where.path}`;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new KubeDecodeError(what, `watch line is not JSON: ${JSON.stringify(text.slice(0, 200))}`);
  }
  if (typeof raw !== "object" || raw === null) throw new KubeDecodeError(what, `watch line is not an object: ${JSON.stringify(text.slice(0, 200))}`);
  const { type, object } = raw as { type?: unknown; object?: unknown };
  if (typeof type !== "string" || !TYPES.has(type)) {
    throw new KubeDecodeError(what, `watch event type ${JSON.stringify(type)} is not one of ${[...TYPES].join(", ")}`);
  }
  if (typeof object !== "object" || object === null) throw new KubeDecodeError(what, `watch ${type} event has no object`);
  if (type === "ERROR") {
    const status: KubeStatus = isStatus(object) ? object : { kind: "Status", message: JSON.stringify(object).slice(0, 200) };
    if (status.code === 410) {
      throw new KubeApiError({ verb: where.verb, path: where.path, status: 410, body: status, reason: "Gone" });
    }
    return { type: "ERROR", object: status };
  }
  return { type: type as Exclude<WatchEventType, "ERROR">, object: object as T };
}
