/**
 * Property fuzzing of what users and peers hand the runtime as documents: the manifest loader
 * (src/local/manifests.ts: any YAML gives manifests or a clear error, never a throw) and schema
 * decode (src/runtime/schema: any JSON against a port schema decodes or fails as a value, never a
 * throw), and port-configuration decoding (src/runtime/runner/port-config.ts).
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { stringify } from "yaml";
import { Type } from "typebox";
import { parseManifestFile } from "../../../src/local/manifests.ts";
import { compilePortDecoder } from "../../../src/runtime/schema/decode.ts";
import { compilePortConfigs, decodeConfiguredPayload, PortConfigTable } from "../../../src/runtime/runner/port-config.ts";
import { runs } from "./runs.ts";

const MANIFEST = fc.record(
  {
    apiVersion: fc.constantFrom("operator.tinysystems.io/v1alpha1", "v1", "", "x/y"),
    kind: fc.constantFrom("TinyNode", "TinyFlow", "TinyProject", "ConfigMap", ""),
    metadata: fc.record(
      { name: fc.string({ maxLength: 30 }), labels: fc.dictionary(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 })) },
      { requiredKeys: [] },
    ),
    spec: fc.anything({ maxDepth: 3 }),
  },
  { requiredKeys: [] },
);

describe("manifest loader fuzzing", () => {
  test("arbitrary text never throws: manifests or errors naming the file", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        const r = parseManifestFile("f.yaml", text);
        for (const e of r.errors) expect(`${e.message} ${JSON.stringify(e)}`).toContain("f.yaml");
      }),
      runs(2000),
    );
  });

  test("YAML documents shaped like manifests, with any values, never throw", () => {
    fc.assert(
      fc.property(fc.array(MANIFEST, { maxLength: 3 }), (docs) => {
        const text = docs.map((d) => stringify(d)).join("---\n");
        parseManifestFile("f.yaml", text);
      }),
      runs(1000),
    );
  });
});

describe("schema decode fuzzing", () => {
  const decoder = compilePortDecoder(
    Type.Object({
      context: Type.Optional(Type.Unknown()),
      n: Type.Integer(),
      f: Type.Number(),
      s: Type.String(),
      b: Type.Boolean(),
      list: Type.Array(Type.Object({ k: Type.String(), v: Type.Optional(Type.Integer()) })),
      map: Type.Record(Type.String(), Type.Number()),
    }),
  );

  test("any JSON value decodes or fails as a value naming the field, never a throw", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue({ maxDepth: 4 }),
          fc.record({ n: fc.jsonValue(), f: fc.jsonValue(), s: fc.jsonValue(), list: fc.jsonValue(), map: fc.jsonValue() }, { requiredKeys: [] }),
        ),
        (v) => {
          const r = decoder(v);
          if (!r.ok) expect(r.issues.length).toBeGreaterThan(0);
        },
      ),
      runs(3000),
    );
  });
});

describe("port-config decoding fuzzing", () => {
  test("any payload bytes decode for an edge configuration, or fail with the documented SyntaxError (the runner turns it into the hop's error)", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 64 }),
          fc.jsonValue({ maxDepth: 3 }).map((v) => new TextEncoder().encode(JSON.stringify(v))),
          fc.string({ maxLength: 64 }),
        ),
        (data) => {
          try {
            decodeConfiguredPayload(data);
          } catch (e) {
            expect(e).toBeInstanceOf(SyntaxError);
          }
        },
      ),
      runs(2000),
    );
  });

  test("any base64 configuration on a node's ports compiles or reports per port, never throws", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            from: fc.constantFrom("", "h.m.a-1:out"),
            port: fc.constantFrom("in", "_settings", "x"),
            configuration: fc.oneof(
              fc.base64String({ maxLength: 40 }),
              fc.jsonValue({ maxDepth: 2 }).map((v) => Buffer.from(JSON.stringify(v)).toString("base64")),
              fc.string({ maxLength: 20 }),
            ),
          }),
          { maxLength: 4 },
        ),
        (ports) => {
          const problems: unknown[] = [];
          compilePortConfigs("h.m.n-1", ports, new PortConfigTable(), (e) => problems.push(e));
          for (const p of problems) expect((p as { code?: string }).code).toBeString();
        },
      ),
      runs(1000),
    );
  });
});
