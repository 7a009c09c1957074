/**
 * Records Go's outcome of our own cases (cases-tinyhost.jsonl) from the live oracle, writing it
 * into each line's `go`. Run after adding cases: `./node_modules/.bin/bun test/conformance/record.ts`.
 * The integration test (test/integration/expression-conformance.test.ts) checks the recording
 * still equals the live oracle, so a stale recording fails there.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_PAYLOAD, readCases } from "./harness.ts";
import { runOracle } from "./oracle.ts";

const file = "cases-tinyhost.jsonl";
const cases = readCases(file);
const go = await runOracle(cases);
const lines = cases.map((c) => JSON.stringify({ id: c.id, config: c.config, payload: c.payload === DEFAULT_PAYLOAD ? null : c.payload, go: go.get(c.id) }));
writeFileSync(join(import.meta.dir, file), lines.join("\n") + "\n");
console.log(`recorded Go's outcome of ${cases.length} cases into ${file}`);
