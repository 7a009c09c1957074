import { expect, test } from "bun:test";
import { REPEATED_WATCH_ERROR_MS, watchErrorLog } from "../../../src/k8s/controllers/tinycomponent-wiring.ts";

test("a watch error repeated on every backoff is logged once, again when it changes or after REPEATED_WATCH_ERROR_MS", () => {
  const lines: string[] = [];
  let t = 0;
  const onError = watchErrorLog({ warn: (obj) => lines.push((obj as { err: string }).err) }, () => t);
  const forbidden = new Error("403 Forbidden: tinycomponents is forbidden");
  for (let i = 0; i < 30; i++) {
    onError(forbidden);
    t += 20_000;
  }
  expect(lines).toEqual([String(forbidden)]);
  onError(new Error("404 Not Found"));
  expect(lines).toHaveLength(2);
  onError(forbidden);
  expect(lines).toHaveLength(3);
  t += REPEATED_WATCH_ERROR_MS;
  onError(forbidden);
  expect(lines).toEqual([String(forbidden), "Error: 404 Not Found", String(forbidden), String(forbidden)]);
});
