/**
 * Records Go's outcome of every encoding case from the live oracle into go.jsonl. Run after adding
 * cases: `./node_modules/.bin/bun test/conformance/encoding/record.ts`. The integration test
 * (test/integration/encoding-conformance.test.ts) checks the recording still equals the oracle.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { allEncodingCases } from "./harness.ts";
import { runCodecsOracle } from "./oracle.ts";

const cases = allEncodingCases();
const go = await runCodecsOracle(cases);
writeFileSync(join(import.meta.dir, "go.jsonl"), cases.map((c) => JSON.stringify({ id: c.id, go: go.get(c.id) })).join("\n") + "\n");
console.log(`recorded Go's outcome of ${cases.length} encoding cases into go.jsonl`);
