/**
 * jwt_encode and jwt_decode (Go encoding-module components/jwt/encode, jwt/verify; no Go tests
 * of their own): round trips for every method, golang-jwt's verdicts and texts through the
 * components, the error ports, and the published schemas. RFC 7515 appendix A.1's HS256 token
 * checks the framing against the specification itself; golang-jwt is compared case by case in
 * test/unit/golang/encoding-conformance.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { testComponent } from "tinyhost";
import jwtEncode from "../../../components/jwt_encode.ts";
import jwtDecode from "../../../components/jwt_decode.ts";
import keyFile from "../../conformance/encoding/jwt-keys.json" with { type: "json" };

process.env.TINYHOST_LOG_LEVEL ??= "silent";
const K = keyFile.keys as Record<string, string>;
const unb64 = (s: string) => JSON.parse(Buffer.from(s, "base64").toString("utf8"));
const FUTURE = 4102444800;

async function sign(signingMethod: string, claims: unknown, key: string, settings = { enableErrorPort: false }) {
  const h = await testComponent(jwtEncode, { settings });
  const result = await h.send("request", { context: { id: 1 }, signingMethod, claims, key });
  return { result, emitted: h.emitted };
}

async function verify(token: string, signingMethod: string, key: string, settings = { enableErrorPort: false }) {
  const h = await testComponent(jwtDecode, { settings });
  const result = await h.send("request", { context: "c", signingMethod, token, key });
  return { result, emitted: h.emitted };
}

const tokenOf = (r: Awaited<ReturnType<typeof sign>>) => (r.emitted[0]!.data as { token: string }).token;

describe("jwt_encode → jwt_decode round trips", () => {
  const cases: [string, string, string][] = [
    ["HS256", "secret", "secret"],
    ["HS384", "secret", "secret"],
    ["HS512", "secret", "secret"],
    ["RS256", K["rsa2048.pem"]!, K["rsa2048.pub"]!],
    ["RS384", K["rsa2048.pk8"]!, K["rsa2048.crt"]!],
    ["RS512", K["rsa2048.pem"]!, K["rsa2048.pkcs1.pub"]!],
    ["ES256", K["ec-prime256v1.pem"]!, K["ec-prime256v1.pub"]!],
    ["ES384", K["ec-secp384r1.pem"]!, K["ec-secp384r1.pub"]!],
    ["ES512", K["ec-secp521r1.pem"]!, K["ec-secp521r1.pub"]!],
  ];
  for (const [method, priv, pub] of cases) {
    test(`${method}: the claims come back, keys in Go's order`, async () => {
      const signed = await sign(method, { sub: "u1", exp: FUTURE, custom: { b: 1, a: [true] } }, priv);
      expect(signed.result.kind).not.toBe("fail");
      const token = tokenOf(signed);
      expect(unb64(token.split(".")[0]!.replace(/-/g, "+").replace(/_/g, "/"))).toEqual({ alg: method, typ: "JWT" });
      const verified = await verify(token, method, pub);
      expect(verified.emitted).toEqual([{ port: "response", data: { context: "c", claims: { custom: { a: [true], b: 1 }, exp: FUTURE, sub: "u1" } } }]);
      expect(Object.keys((verified.emitted[0]!.data as { claims: object }).claims)).toEqual(["custom", "exp", "sub"]);
    });
  }
});

describe("jwt_encode", () => {
  test("RFC 7515 A.1's claims and key give its header's shape and a verifiable HS256 token", async () => {
    // The RFC's own header has whitespace and no `typ` order, so compare the signing input we make.
    const key = Buffer.from("AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow", "base64url").toString("latin1");
    const signed = await sign("HS256", { iss: "joe", exp: 1300819380, "http://example.com/is_root": true }, key);
    expect(tokenOf(signed).split(".")[1]).toBe(Buffer.from('{"exp":1300819380,"http://example.com/is_root":true,"iss":"joe"}').toString("base64url"));
  });

  test("claims are written as encoding/json writes them: sorted, HTML escaped", async () => {
    const token = tokenOf(await sign("HS256", { z: "<&>", a: 1e21, m: 1e-7 }, "k"));
    expect(Buffer.from(token.split(".")[1]!, "base64url").toString()).toBe('{"a":1e+21,"m":1e-7,"z":"\\u003c\\u0026\\u003e"}');
  });

  test("null claims are the JSON null, as Go marshals a nil map", async () => {
    expect(Buffer.from(tokenOf(await sign("HS256", null, "k")).split(".")[1]!, "base64url").toString()).toBe("null");
  });

  test("None, an unknown method and a wrong curve fail with golang-jwt's texts", async () => {
    for (const [method, key, text] of [
      ["None", "", "token is unverifiable: 'none' signature type is not allowed"],
      ["XX", "k", "key is of invalid type: HMAC sign expects []byte"],
      ["ES256", K["ec-secp384r1.pem"]!, "key is invalid"],
      ["RS256", K["rsa512.pem"]!, "crypto/rsa: 512-bit keys are insecure (see https://go.dev/pkg/crypto/rsa#hdr-Minimum_key_size)"],
    ] as const) {
      const { result } = await sign(method, { a: 1 }, key);
      expect(result.kind === "fail" && result.error.message).toBe(text);
    }
  });

  test("deliberate: a key that does not parse is reported (Go signs with a nil key and crashes)", async () => {
    const { result } = await sign("RS256", { a: 1 }, "not a key");
    expect(result.kind === "fail" && result.error.message).toBe("invalid key: Key must be a PEM encoded PKCS1 or PKCS8 key");
    const ec = await sign("RS256", { a: 1 }, K["ec-prime256v1.pem"]!);
    expect(ec.result.kind === "fail" && ec.result.error.message).toBe("key is not a valid RSA private key");
  });

  test("with the error port a failure is emitted there", async () => {
    const { result, emitted } = await sign("None", {}, "", { enableErrorPort: true });
    expect(result.kind).not.toBe("fail");
    expect(emitted).toEqual([{ port: "error", data: { context: { id: 1 }, error: "token is unverifiable: 'none' signature type is not allowed" } }]);
  });

  test("request publishes Go's shape: the method select and the registered claims", async () => {
    const h = await testComponent(jwtEncode);
    const request = h.status().ports!.find((p) => p.name === "request")!;
    expect(unb64(request.configuration)).toEqual({ context: null, signingMethod: "HS256", claims: null, key: "" });
    const schema = unb64(request.schema) as { $defs: Record<string, { properties?: Record<string, unknown>; enum?: string[] }> };
    expect(Object.keys(schema.$defs.Mapclaims!.properties!).sort()).toEqual(["aud", "exp", "iat", "iss", "jti", "nbf", "sub"]);
    expect((schema.$defs.Request!.properties!.signingMethod as { enum: string[] }).enum).toEqual([
      "ES256",
      "ES384",
      "ES512",
      "HS256",
      "HS384",
      "HS512",
      "RS256",
      "RS384",
      "RS512",
      "None",
    ]);
  });

  test("claims beyond the registered ones, of any type, are signed as given", async () => {
    const token = tokenOf(await sign("HS256", { exp: 1.5, roles: ["a"], n: null }, "k"));
    expect(Buffer.from(token.split(".")[1]!, "base64url").toString()).toBe('{"exp":1.5,"n":null,"roles":["a"]}');
  });
});

describe("jwt_decode", () => {
  const hs = (claims: object) => sign("HS256", claims, "secret").then(tokenOf);

  test("an expired token and a not-yet-valid one fail with golang-jwt's texts", async () => {
    const expired = await verify(await hs({ exp: 1000000000 }), "HS256", "secret");
    expect(expired.result.kind === "fail" && expired.result.error.message).toBe("token verification failed: token has invalid claims: token is expired");
    const early = await verify(await hs({ nbf: FUTURE, exp: 1000000000 }), "HS256", "secret");
    expect(early.result.kind === "fail" && early.result.error.message).toBe(
      "token verification failed: token has invalid claims: token is expired, token is not valid yet",
    );
  });

  test("a wrong secret, a tampered token and a wrong key kind are refused", async () => {
    const token = await hs({ sub: "x" });
    const wrong = await verify(token, "HS256", "other");
    expect(wrong.result.kind === "fail" && wrong.result.error.message).toBe("token verification failed: token signature is invalid: signature is invalid");
    const [h, , s] = token.split(".");
    const tampered = await verify(`${h}.${Buffer.from('{"sub":"admin"}').toString("base64url")}.${s}`, "HS256", "secret");
    expect(tampered.result.kind).toBe("fail");
    const kind = await verify(token, "RS256", K["rsa2048.pub"]!);
    expect(kind.result.kind === "fail" && kind.result.error.message).toBe(
      "token verification failed: token signature is invalid: key is of invalid type: HMAC verify expects []byte",
    );
  });

  test("alg none passes only with the None method", async () => {
    const none = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from('{"sub":"x"}').toString("base64url")}.`;
    expect((await verify(none, "None", "")).emitted[0]!.data).toEqual({ context: "c", claims: { sub: "x" } });
    const refused = await verify(none, "HS256", "secret");
    expect(refused.result.kind === "fail" && refused.result.error.message).toBe(
      "token verification failed: token signature is invalid: token is unverifiable: 'none' signature type is not allowed",
    );
  });

  test("an unsupported method and a key that does not parse fail before the token is read", async () => {
    const bad = await verify("x", "XX", "k");
    expect(bad.result.kind === "fail" && bad.result.error.message).toBe("unsupported signing method: XX");
    const key = await verify("x", "RS256", "text");
    expect(key.result.kind === "fail" && key.result.error.message).toBe("parse RSA public key: invalid key: Key must be a PEM encoded PKCS1 or PKCS8 key");
  });

  test("with the error port a failure is emitted there", async () => {
    const { result, emitted } = await verify("a.b", "HS256", "k", { enableErrorPort: true });
    expect(result.kind).not.toBe("fail");
    expect(emitted).toEqual([
      { port: "error", data: { context: "c", error: "token verification failed: token is malformed: token contains an invalid number of segments" } },
    ]);
  });

  test("ports: In, Out, Settings; Error only when enabled", async () => {
    const h = await testComponent(jwtDecode);
    expect(h.status().ports!.map((p) => [p.name, p.label])).toEqual([
      ["_settings", "Settings"],
      ["request", "In"],
      ["response", "Out"],
    ]);
  });
});
