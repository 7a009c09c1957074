/**
 * src/golang/ against the live Go codecs (test/go/codecs: encoding/csv, goccy/go-json, fmt,
 * encoding/xml, text/template, golang-jwt v5.3.1, built by scripts/build-go-tools.sh): the
 * recordings the unit test uses (test/conformance/encoding/go.jsonl) must still be what Go says,
 * every case must give Go's outcome unless listed in deliberate.json, and what only a live Go can
 * check — ECDSA tokens, whose signatures are random — is checked here: tokens jwt_encode's codec
 * signs are verified by golang-jwt.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { allEncodingCases, compare, readDeliberate, readRecording } from "../conformance/encoding/harness.ts";
import keyFile from "../conformance/encoding/jwt-keys.json" with { type: "json" };
import { runCodecsOracle } from "../conformance/encoding/oracle.ts";
import { ours } from "../conformance/encoding/ours.ts";
import type { EncodingCase, GoOutcome } from "../conformance/encoding/types.ts";
import { signGoJwt } from "../../src/golang/jwt.ts";

const cases = allEncodingCases();
let live = new Map<string, GoOutcome>();

beforeAll(async () => {
  live = await runCodecsOracle(cases);
}, 600_000);

describe("encoding conformance (live Go codecs)", () => {
  test("the live oracle reproduces every recorded outcome", () => {
    const recorded = readRecording();
    const stale = cases.filter((c) => JSON.stringify(recorded.get(c.id)) !== JSON.stringify(live.get(c.id))).map((c) => c.id);
    expect(stale).toEqual([]);
  });

  test("every case gives Go's outcome unless deliberate, and every listed case differs", () => {
    const report = compare(cases, (c) => live.get(c.id)!, ours, readDeliberate());
    console.log(`encoding conformance (live): ${report.run} cases, ${report.equal} equal, ${report.deliberate} deliberate`);
    expect(report.undeclared).toEqual([]);
    expect(report.stale).toEqual([]);
  });

  test("golang-jwt verifies the ES256/384/512 tokens tinyhost signs", async () => {
    const K = keyFile.keys as Record<string, string>;
    const claims = { sub: "from-tinyhost", exp: 4102444800, n: 1.5 };
    const pairs: [string, string, string][] = [
      ["ES256", "ec-prime256v1.pem", "ec-prime256v1.pub"],
      ["ES384", "ec-secp384r1.pem", "ec-secp384r1.pub"],
      ["ES512", "ec-secp521r1.pem", "ec-secp521r1.pub"],
    ];
    const checks: EncodingCase[] = pairs.map(([method, priv, pub]) => ({
      id: `live-${method}`,
      op: "jwt_parse",
      token: signGoJwt(method, claims, K[priv]!),
      method,
      key: K[pub]!,
    }));
    const verdicts = await runCodecsOracle(checks);
    for (const c of checks)
      expect({ id: c.id, outcome: verdicts.get(c.id) }).toEqual({ id: c.id, outcome: { claims: '{"exp":4102444800,"n":1.5,"sub":"from-tinyhost"}' } });
  });
});
