/**
 * JWT cases for the Go oracle (test/go/codecs `jwt_sign`, `jwt_parse`: golang-jwt v5.3.1 as
 * jwt_encode and jwt_decode call it), on the test-only keys of jwt-keys.json: HMAC and RSA tokens
 * byte for byte (both deterministic), ECDSA tokens signed by Go and verified here (and, in the
 * integration test, ours verified by Go), RSA-PSS and EdDSA tokens made with node:crypto, and the
 * failures — tampering, wrong keys and key kinds, alg none, bad base64, bad JSON, exp and nbf.
 */
import { createPrivateKey, sign } from "node:crypto";
import keyFile from "./jwt-keys.json" with { type: "json" };
import type { EncodingCase } from "./types.ts";

const K = keyFile.keys as Record<string, string>;
const FUTURE = 4102444800; // 2100-01-01
const PAST = 1000000000; // 2001-09-09

const b64 = (s: string | Uint8Array) => Buffer.from(s).toString("base64url");
/** A token with `header` and `claims` as given (raw JSON text) and an HS256 signature with `secret`. */
function hs256(header: string, claims: string, secret = "secret"): string {
  const signing = `${b64(header)}.${b64(claims)}`;
  const mac = new Bun.CryptoHasher("sha256", secret).update(signing).digest();
  return `${signing}.${b64(mac)}`;
}

function asymmetric(alg: string, claims: string, keyPem: string, options: Record<string, unknown> = {}): string {
  const signing = `${b64(JSON.stringify({ alg, typ: "JWT" }))}.${b64(claims)}`;
  const hash = alg === "EdDSA" ? null : `sha${alg.slice(2)}`;
  const sig = sign(hash, Buffer.from(signing), { key: createPrivateKey(keyPem), ...options });
  return `${signing}.${b64(sig)}`;
}

const CLAIMS_VARIANTS: Record<string, unknown> = {
  basic: { sub: "1234567890", name: "John Doe", iat: 1516239022 },
  html: { sub: "<a href='x'>&</a>" },
  numbers: { big: 1e21, small: 1e-7, neg: -0.5, int: 9007199254740993, frac: 1.25 },
  controls: { s: "\b\f\n\r\t\u0001\u001f\u007f \u2028\u2029" },
  unicode: { ключ: "值", "😀": "é", "\uffff": 1 },
  nested: { aud: ["a", "b"], ctx: { deep: [1, { x: null }] }, ok: true },
  empty: {},
  registered: { iss: "issuer", sub: "subject", aud: "audience", exp: FUTURE, nbf: PAST, iat: PAST, jti: "id-1" },
};

/** Every JWT case. */
export function jwtCases(): EncodingCase[] {
  const cases: EncodingCase[] = [];
  for (const [name, claims] of Object.entries(CLAIMS_VARIANTS)) {
    for (const m of ["HS256", "HS384", "HS512"])
      cases.push({ id: `jwt-sign-${m}-${name}`, op: "jwt_sign", method: m, claims: JSON.stringify(claims), key: "s3cr3t-κλειδί" });
    cases.push({ id: `jwt-sign-RS256-${name}`, op: "jwt_sign", method: "RS256", claims: JSON.stringify(claims), key: K["rsa2048.pem"] });
  }
  const c = JSON.stringify({ sub: "x", exp: FUTURE });
  cases.push(
    { id: "jwt-sign-RS384-pkcs8", op: "jwt_sign", method: "RS384", claims: c, key: K["rsa2048.pk8"] },
    { id: "jwt-sign-RS512", op: "jwt_sign", method: "RS512", claims: c, key: K["rsa2048.pem"] },
    { id: "jwt-sign-HS256-empty-key", op: "jwt_sign", method: "HS256", claims: c, key: "" },
    { id: "jwt-sign-None", op: "jwt_sign", method: "None", claims: c, key: "" },
    { id: "jwt-sign-unknown-method", op: "jwt_sign", method: "XX999", claims: c, key: "k" },
    { id: "jwt-sign-empty-method", op: "jwt_sign", method: "", claims: c, key: "k" },
    { id: "jwt-sign-ES256-wrong-curve", op: "jwt_sign", method: "ES256", claims: c, key: K["ec-secp384r1.pem"] },
    { id: "jwt-sign-ES256-garbage-key", op: "jwt_sign", method: "ES256", claims: c, key: "not a key" },
    { id: "jwt-sign-RS256-garbage-key", op: "jwt_sign", method: "RS256", claims: c, key: "not a key" },
    { id: "jwt-sign-RS256-ec-key", op: "jwt_sign", method: "RS256", claims: c, key: K["ec-prime256v1.pem"] },
    { id: "jwt-sign-RS256-512-bit", op: "jwt_sign", method: "RS256", claims: c, key: K["rsa512.pem"] },
  );

  const good = hs256('{"alg":"HS256","typ":"JWT"}', JSON.stringify({ sub: "u1", exp: FUTURE, n: 1.5, list: [1, "x"] }));
  const parse = (id: string, token: string, method: string, key: string) => cases.push({ id: `jwt-parse-${id}`, op: "jwt_parse", token, method, key });
  parse("hs256-ok", good, "HS256", "secret");
  parse("hs256-wrong-secret", good, "HS256", "other");
  parse("hs256-method-hs512", good, "HS512", "secret");
  parse("hs256-with-rs-method", good, "RS256", K["rsa2048.pub"]!);
  parse("hs256-with-es-method", good, "ES256", K["ec-prime256v1.pub"]!);
  parse("hs256-with-none-method", good, "None", "");
  parse("unknown-method", good, "XX", "secret");
  const [h, p, s] = good.split(".") as [string, string, string];
  parse("tampered-payload", `${h}.${b64(JSON.stringify({ sub: "admin", exp: FUTURE }))}.${s}`, "HS256", "secret");
  parse("two-segments", `${h}.${p}`, "HS256", "secret");
  parse("four-segments", `${good}.x`, "HS256", "secret");
  parse("empty", "", "HS256", "secret");
  parse("padded-signature", `${good}=`, "HS256", "secret");
  parse("bad-char-header", `${h.slice(0, 4)}*${h.slice(5)}.${p}.${s}`, "HS256", "secret");
  parse("header-len-mod-4-is-1", `${h}A.${p}.${s}`, "HS256", "secret");
  parse("newline-in-signature", `${h}.${p}.${s.slice(0, 10)}\n${s.slice(10)}`, "HS256", "secret");
  parse("std-base64-chars", `${h}.${p}.${s.replace(/-/g, "+").replace(/_/g, "/")}`, "HS256", "secret");
  parse("header-not-json", hs256("{alg", '{"sub":"x"}'), "HS256", "secret");
  parse("header-array", hs256('["HS256"]', '{"sub":"x"}'), "HS256", "secret");
  parse("header-null", hs256("null", '{"sub":"x"}'), "HS256", "secret");
  parse("header-no-alg", hs256('{"typ":"JWT"}', '{"sub":"x"}'), "HS256", "secret");
  parse("header-alg-number", hs256('{"alg":256}', '{"sub":"x"}'), "HS256", "secret");
  parse("header-alg-unknown", hs256('{"alg":"HS999"}', '{"sub":"x"}'), "HS256", "secret");
  parse("claims-not-json", hs256('{"alg":"HS256"}', "{sub"), "HS256", "secret");
  parse("claims-array", hs256('{"alg":"HS256"}', "[1]"), "HS256", "secret");
  parse("claims-string", hs256('{"alg":"HS256"}', '"x"'), "HS256", "secret");
  parse("claims-null", hs256('{"alg":"HS256"}', "null"), "HS256", "secret");
  parse("claims-lone-surrogate", hs256('{"alg":"HS256"}', '{"s":"\\ud800"}'), "HS256", "secret");
  parse("claims-html-and-order", hs256('{"alg":"HS256"}', '{"z":"<&>","a":{"y":1,"b":2}}'), "HS256", "secret");
  parse("exp-past", hs256('{"alg":"HS256"}', JSON.stringify({ exp: PAST })), "HS256", "secret");
  parse("exp-fraction-past", hs256('{"alg":"HS256"}', JSON.stringify({ exp: PAST + 0.9 })), "HS256", "secret");
  parse("exp-zero", hs256('{"alg":"HS256"}', JSON.stringify({ exp: 0 })), "HS256", "secret");
  parse("exp-string", hs256('{"alg":"HS256"}', JSON.stringify({ exp: "4102444800" })), "HS256", "secret");
  parse("exp-null", hs256('{"alg":"HS256"}', '{"exp":null}'), "HS256", "secret");
  parse("nbf-future", hs256('{"alg":"HS256"}', JSON.stringify({ nbf: FUTURE })), "HS256", "secret");
  parse("nbf-past", hs256('{"alg":"HS256"}', JSON.stringify({ nbf: PAST })), "HS256", "secret");
  parse("exp-past-nbf-future", hs256('{"alg":"HS256"}', JSON.stringify({ exp: PAST, nbf: FUTURE })), "HS256", "secret");
  parse("exp-bool-nbf-future", hs256('{"alg":"HS256"}', JSON.stringify({ exp: true, nbf: FUTURE })), "HS256", "secret");
  parse("iat-future-ignored", hs256('{"alg":"HS256"}', JSON.stringify({ iat: FUTURE })), "HS256", "secret");
  parse("iat-string-ignored", hs256('{"alg":"HS256"}', JSON.stringify({ iat: "x" })), "HS256", "secret");
  const none = `${b64('{"alg":"none","typ":"JWT"}')}.${b64('{"sub":"x"}')}.`;
  parse("none-with-none-method", none, "None", "");
  parse("none-with-hs-method", none, "HS256", "secret");
  parse("none-with-signature", `${none}c2ln`, "None", "");
  const rs = asymmetric("RS256", c, K["rsa2048.pem"]!);
  parse("rs256-spki", rs, "RS256", K["rsa2048.pub"]!);
  parse("rs256-pkcs1-public", rs, "RS384", K["rsa2048.pkcs1.pub"]!);
  parse("rs256-certificate", rs, "RS512", K["rsa2048.crt"]!);
  parse("rs256-with-hs-method-and-pem-secret", rs, "HS256", K["rsa2048.pub"]!);
  parse("rs256-with-es-method", rs, "ES256", K["ec-prime256v1.pub"]!);
  parse("rs256-garbage-pem", rs, "RS256", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n");
  parse("rs256-not-pem", rs, "RS256", "just text");
  parse("rs256-ec-key", rs, "RS256", K["ec-prime256v1.pub"]!);
  parse("rs256-wrong-rsa-key", rs, "RS256", K["rsa512.pub"]!);
  parse("ps256", asymmetric("PS256", c, K["rsa2048.pem"]!, { padding: 6, saltLength: 32 }), "RS256", K["rsa2048.pub"]!);
  parse("ps512", asymmetric("PS512", c, K["rsa2048.pem"]!, { padding: 6, saltLength: 64 }), "RS256", K["rsa2048.pub"]!);
  parse("eddsa", asymmetric("EdDSA", c, K["ed.pem"]!), "ES256", K["ed.pub"]!);
  const go = keyFile.goTokens as Record<string, string>;
  parse("es256-go", go.ES256!, "ES256", K["ec-prime256v1.pub"]!);
  parse("es384-go", go.ES384!, "ES384", K["ec-secp384r1.pub"]!);
  parse("es512-go", go.ES512!, "ES512", K["ec-secp521r1.pub"]!);
  parse("es384-go-with-p256-key", go.ES384!, "ES256", K["ec-prime256v1.pub"]!);
  parse("es256-go-with-p384-key", go.ES256!, "ES384", K["ec-secp384r1.pub"]!);
  parse("es256-go-with-rsa-key", go.ES256!, "ES256", K["rsa2048.pub"]!);
  parse("es256-go-truncated-signature", go.ES256!.slice(0, -4), "ES256", K["ec-prime256v1.pub"]!);
  return cases;
}
