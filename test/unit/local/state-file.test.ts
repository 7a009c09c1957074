import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readStateFile, StateFileError, StateFileWriter, writeStateFile } from "../../../src/local/state-file.ts";
import type { NodeSeed } from "../../../src/local/node-api.ts";

const dir = () => mkdtempSync(join(tmpdir(), "tinyhost-state-"));

describe("state file", () => {
  test("round trip keeps metadata, status text, ports and finalizers of every node", () => {
    const file = join(dir(), ".tinyhost-state.json");
    const nodes = new Map<string, NodeSeed>([
      [
        "h.mod.counter-1",
        { status: { status: "OK", error: false, metadata: { "_state/count": "Mw==", port: "8080" } }, finalizers: ["io.tinysystems/node-finalizer"] },
      ],
      [
        "h.mod.ticker-1",
        {
          status: {
            status: "boom",
            error: true,
            metadata: { "ticker-running": "true" },
            ports: [{ name: "_control", label: "Control", position: 0, source: true, schema: "e30=", configuration: "bnVsbA==" }],
          },
        },
      ],
    ]);
    writeStateFile(file, nodes);
    expect(readStateFile(file)).toEqual(nodes);
  });

  test("a file written before finalizers were kept reads as status only", () => {
    const file = join(dir(), "s.json");
    writeFileSync(file, JSON.stringify({ version: 1, nodes: { "a.b.c": { status: { metadata: { n: "1" } } } } }));
    expect(readStateFile(file)).toEqual(new Map([["a.b.c", { status: { metadata: { n: "1" } } }]]));
  });

  test("a missing file is an empty state", () => {
    expect(readStateFile(join(dir(), "nope.json")).size).toBe(0);
  });

  test("a file that is not a state file is an error naming the file", () => {
    const file = join(dir(), "s.json");
    writeFileSync(file, '{"nodes": 3}');
    expect(() => readStateFile(file)).toThrow(StateFileError);
    expect(() => readStateFile(file)).toThrow(`${file}: expected {"version": 1`);
    writeFileSync(file, "{not json");
    expect(() => readStateFile(file)).toThrow(/not JSON/);
  });

  test("writes are atomic: no temp file is left next to the state file", () => {
    const d = dir();
    writeStateFile(join(d, "s.json"), new Map([["a.b.c", { status: { status: "OK" } }]]));
    expect(readdirSync(d)).toEqual(["s.json"]);
  });

  test("the writer debounces: many schedules make one write after the quiet time; flush writes at once", async () => {
    const file = join(dir(), "s.json");
    let snapshots = 0;
    const state = new Map<string, NodeSeed>([["a.b.c", { status: { metadata: { n: "1" } } }]]);
    const w = new StateFileWriter(file, () => (snapshots++, state), 30);
    for (let i = 0; i < 5; i++) w.schedule();
    expect(existsSync(file)).toBe(false);
    await Bun.sleep(80);
    expect(snapshots).toBe(1);
    expect(readStateFile(file).get("a.b.c")!.status!.metadata).toEqual({ n: "1" });
    state.set("a.b.c", { status: { metadata: { n: "2" } } });
    w.schedule();
    w.flush();
    expect(snapshots).toBe(2);
    expect(readStateFile(file).get("a.b.c")!.status!.metadata).toEqual({ n: "2" });
  });
});
