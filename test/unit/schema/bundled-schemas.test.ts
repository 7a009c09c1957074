/**
 * Every port schema of every bundled component is a valid JSON Schema 2020-12 document. The
 * runtime never runs this meta-schema check (it costs ~50 ms of start-up; its decoder only checks
 * keywords, src/runtime/schema/strict.ts), so it is enforced here, where a bad schema fails CI instead.
 */
import { describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020";
import { resolve } from "node:path";
import { describeComponent } from "../../../src/runtime/registry/index.ts";
import { discoverComponents } from "../../../src/loader/discover.ts";
import { PLATFORM_KEYWORDS } from "../../../src/runtime/schema/keywords.ts";
import { compilePortDecoder } from "../../../src/runtime/schema/index.ts";

const registry = await discoverComponents(resolve(import.meta.dir, "../../../components"));
const meta = new Ajv2020({ strict: false, validateSchema: true });
meta.addVocabulary([...PLATFORM_KEYWORDS]);

describe("bundled component schemas", () => {
  test("there are bundled components to check", () => {
    expect(registry.list().length).toBeGreaterThanOrEqual(12);
  });

  for (const def of registry.list()) {
    test(`${def.info.name}: every port's validation and published schema passes the 2020-12 meta-schema`, () => {
      const problems: string[] = [];
      for (const port of def.ports()) {
        if (!meta.validateSchema(JSON.parse(JSON.stringify(port.schema)))) {
          problems.push(`${port.name} (validation schema): ${meta.errorsText(meta.errors)}`);
        }
        // The decoder the runtime builds compiles too (strict: no unknown keywords).
        expect(() => compilePortDecoder(port.schema)).not.toThrow();
      }
      for (const port of describeComponent(def).ports) {
        if (!meta.validateSchema(port.schema)) problems.push(`${port.name} (published schema): ${meta.errorsText(meta.errors)}`);
      }
      expect(problems).toEqual([]);
    });
  }
});

test("the meta-schema check does catch a broken schema", () => {
  expect(meta.validateSchema({ type: "object", properties: { a: { type: 5 } } })).toBe(false);
});
