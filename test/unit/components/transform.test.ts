import { expect, test } from "bun:test";
import { ok, testComponent } from "tinyhost";
import transform from "../../../components/transform.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

const unb64 = (s: string) => JSON.parse(Buffer.from(s, "base64").toString("utf8"));

test("transform declares in (left) and out (right) with a configurable, required context", async () => {
  const h = await testComponent(transform);
  const ports = h.status().ports!;
  expect(ports.map((p) => [p.name, p.label, p.position, p.source])).toEqual([
    ["in", "In", 3, false],
    ["out", "Out", 1, true],
  ]);
  const schema = unb64(ports[0]!.schema) as { $defs: Record<string, { required?: string[]; configurable?: boolean; path?: string }> };
  expect(Object.values(schema.$defs).find((d) => d.path === "$")!.required).toEqual(["context"]);
  expect(Object.values(schema.$defs).find((d) => d.path === "$.context")!.configurable).toBe(true);
});

test("transform re-emits the context under context on out and returns the downstream result", async () => {
  const h = await testComponent(transform);
  h.respond("out", (d) => ok({ echoed: d }));
  const r = await h.send("in", { context: { a: [1, 2] } });
  expect(h.emitted).toEqual([{ port: "out", data: { context: { a: [1, 2] } } }]);
  expect(r).toEqual({ kind: "ok", value: { echoed: { context: { a: [1, 2] } } } });
});

test("transform passes a missing context on as null", async () => {
  const h = await testComponent(transform);
  await h.send("in", {});
  expect(h.emitted).toEqual([{ port: "out", data: { context: null } }]);
});
