/**
 * JSON Web Tokens (RFC 7519, JWS compact serialisation RFC 7515) as github.com/golang-jwt/jwt/v5
 * v5.3.1 makes and checks them — the library the encoding-module's jwt_encode and jwt_decode call —
 * with the cryptography of node:crypto (Bun's BoringSSL).
 *
 * Not the npm `jose` library: what a Go flow observes is golang-jwt's behaviour, and jose differs
 * in it — the header and claims bytes (golang-jwt writes them with encoding/json: sorted keys,
 * `\u003c`-escaped HTML), its refusal of RSA keys under 2048 bits, its claim checks (golang-jwt
 * checks only `exp` and `nbf`, with no leeway, and ignores `iat`), PEM handling (golang-jwt reads
 * PKCS#1, SEC 1, PKCS#8, SPKI and certificates) and every error text. The framing is a few lines;
 * the signatures (HMAC, RSA PKCS#1 v1.5, RSA-PSS, ECDSA P-256/384/521) are node:crypto's. Tokens
 * and verdicts are compared with golang-jwt itself in test/conformance/encoding.
 */
import { createHmac, createPrivateKey, createPublicKey, sign as cryptoSign, verify as cryptoVerify, X509Certificate, type KeyObject } from "node:crypto";
import { TinyError } from "../core/errors.ts";
import { goObject, marshalGoJson } from "./json.ts";
import { utf8Bytes, utf8String, wellFormed } from "./unicode.ts";

/** The signing methods the JWT components offer, in Go's order (encoding-module jwt/encode, jwt/verify). */
export const JWT_SIGNING_METHODS = ["ES256", "ES384", "ES512", "HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "None"] as const;

/** A token that cannot be made or does not verify; `message` is golang-jwt's text. code `JWT`. */
export class GoJwtError extends TinyError<"JWT"> {
  constructor(message: string) {
    super("JWT", message);
  }
}

/** The method names the JWT components offer. */
const JWT_METHODS: readonly string[] = JWT_SIGNING_METHODS;

/** golang-jwt's registry: algorithm → hash and kind (every alg a token may name). */
const ALGORITHMS: Record<string, { kind: "hmac" | "rsa" | "pss" | "ecdsa" | "eddsa" | "none"; hash?: string; keySize?: number; curve?: string }> = {
  HS256: { kind: "hmac", hash: "sha256" },
  HS384: { kind: "hmac", hash: "sha384" },
  HS512: { kind: "hmac", hash: "sha512" },
  RS256: { kind: "rsa", hash: "sha256" },
  RS384: { kind: "rsa", hash: "sha384" },
  RS512: { kind: "rsa", hash: "sha512" },
  PS256: { kind: "pss", hash: "sha256" },
  PS384: { kind: "pss", hash: "sha384" },
  PS512: { kind: "pss", hash: "sha512" },
  ES256: { kind: "ecdsa", hash: "sha256", keySize: 32, curve: "prime256v1" },
  ES384: { kind: "ecdsa", hash: "sha384", keySize: 48, curve: "secp384r1" },
  ES512: { kind: "ecdsa", hash: "sha512", keySize: 66, curve: "secp521r1" },
  EdDSA: { kind: "eddsa" },
  none: { kind: "none" },
};

const KEY_MUST_BE_PEM = "invalid key: Key must be a PEM encoded PKCS1 or PKCS8 key";
const NONE_DISALLOWED = "token is unverifiable: 'none' signature type is not allowed";

// ---- base64url (Go encoding/base64 RawURLEncoding) ------------------------------------------------

const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const DECODE = new Int16Array(256).fill(-1);
for (let i = 0; i < B64URL.length; i++) DECODE[B64URL.charCodeAt(i)] = i;

/** Go `base64.RawURLEncoding.EncodeToString`. */
export function encodeSegment(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64url");
}

/**
 * Go `base64.RawURLEncoding.DecodeString` (not strict): `\r` and `\n` are skipped, padding and other
 * characters refused with Go's `illegal base64 data at input byte N`, stray low bits accepted.
 */
export function decodeSegment(seg: string): Uint8Array {
  const src = utf8Bytes(seg);
  const out: number[] = [];
  let si = 0;
  for (;;) {
    const quad: number[] = [];
    let j = 0;
    while (j < 4) {
      if (si === src.length) {
        if (j === 0) return Uint8Array.from(out);
        if (j === 1) throw new Error(`illegal base64 data at input byte ${si - j}`);
        break;
      }
      const c = src[si++]!;
      const v = DECODE[c]!;
      if (v >= 0) {
        quad.push(v);
        j++;
        continue;
      }
      if (c === 0x0a || c === 0x0d) continue;
      throw new Error(`illegal base64 data at input byte ${si - 1}`);
    }
    const val = ((quad[0] ?? 0) << 18) | ((quad[1] ?? 0) << 12) | ((quad[2] ?? 0) << 6) | (quad[3] ?? 0);
    out.push((val >> 16) & 0xff);
    if (quad.length >= 3) out.push((val >> 8) & 0xff);
    if (quad.length === 4) out.push(val & 0xff);
    if (quad.length < 4) return Uint8Array.from(out);
  }
}

// ---- keys (golang-jwt rsa_utils.go, ecdsa_utils.go over Go's encoding/pem) ------------------------

/** Go `pem.Decode`: the DER bytes of the first PEM block in `text`, or undefined. */
function pemBlock(text: string): Buffer | undefined {
  const m = /(?:^|\n)-----BEGIN ([^\n]*?)-----\r?\n([\s\S]*?)-----END \1-----/.exec(text);
  if (!m) return undefined;
  const body = m[2]!.replace(/^[^\n:]*:[^\n]*\n/gm, "").replace(/\s+/g, ""); // drop `Name: value` headers
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body)) return undefined;
  return Buffer.from(body, "base64");
}

function attempt(...tries: (() => KeyObject)[]): { key?: KeyObject; error?: Error } {
  let error: Error | undefined;
  for (const t of tries) {
    try {
      return { key: t() };
    } catch (err) {
      error = err as Error;
    }
  }
  return { error };
}

/** Reads a private key as golang-jwt's `Parse{RSA,EC}PrivateKeyFromPEM` does. @throws GoJwtError */
export function parsePrivateKey(pem: string, kind: "rsa" | "ec"): KeyObject {
  const der = pemBlock(pem);
  if (!der) throw new GoJwtError(KEY_MUST_BE_PEM);
  const first = kind === "rsa" ? "pkcs1" : "sec1";
  const { key, error } = attempt(
    () => createPrivateKey({ key: der, format: "der", type: first }),
    () => createPrivateKey({ key: der, format: "der", type: "pkcs8" }),
  );
  if (!key) throw new GoJwtError(`x509: failed to parse private key: ${error?.message ?? "unknown format"}`);
  const type = key.asymmetricKeyType;
  if (kind === "rsa" && type !== "rsa") throw new GoJwtError("key is not a valid RSA private key");
  if (kind === "ec" && type !== "ec") throw new GoJwtError("key is not a valid ECDSA private key");
  return key;
}

/** Reads a public key as golang-jwt's `Parse{RSA,EC}PublicKeyFromPEM` does (SPKI, certificate, PKCS#1). @throws GoJwtError */
export function parsePublicKey(pem: string, kind: "rsa" | "ec"): KeyObject {
  const der = pemBlock(pem);
  if (!der) throw new GoJwtError(KEY_MUST_BE_PEM);
  const tries: (() => KeyObject)[] = [() => createPublicKey({ key: der, format: "der", type: "spki" }), () => new X509Certificate(der).publicKey];
  if (kind === "rsa") tries.push(() => createPublicKey({ key: der, format: "der", type: "pkcs1" }));
  const { key, error } = attempt(...tries);
  if (!key) throw new GoJwtError(`x509: failed to parse public key: ${error?.message ?? "unknown format"}`);
  const type = key.asymmetricKeyType;
  if (kind === "rsa" && type !== "rsa") throw new GoJwtError("key is not a valid RSA public key");
  if (kind === "ec" && type !== "ec") throw new GoJwtError("key is not a valid ECDSA public key");
  return key;
}

/** Go 1.24+ crypto/rsa refuses keys under 1024 bits (GODEBUG rsa1024min=1). */
function checkRsaSize(key: KeyObject): void {
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < 1024) throw new GoJwtError(insecureRsa(bits));
}

function insecureRsa(bits: number): string {
  return `crypto/rsa: ${bits}-bit keys are insecure (see https://go.dev/pkg/crypto/rsa#hdr-Minimum_key_size)`;
}

// ---- sign -------------------------------------------------------------------------------------

/**
 * Signs `claims` as jwt_encode does: `method` (one of {@link JWT_METHODS}) picks the algorithm and
 * how `key` is read — HS* its UTF-8 bytes, RS* an RSA and ES* an EC private key in PEM. An unknown
 * method is HS256 with no key (golang-jwt: `key is of invalid type`); `None` never signs (golang-jwt
 * refuses unsigned tokens without its unsafe marker, which the component never passes).
 * @returns the compact token `header.claims.signature`.
 * @throws GoJwtError with golang-jwt's text, or (where Go would crash on a nil key) the key's parse error.
 */
export function signGoJwt(method: string, claims: Record<string, unknown> | null, key: string): string {
  const alg = JWT_METHODS.includes(method) && method !== "None" ? method : method === "None" ? "none" : "HS256";
  const header = encodeSegment(utf8Bytes(marshalGoJson({ alg, typ: "JWT" }, "encoding/json")));
  const payload = encodeSegment(utf8Bytes(marshalGoJson(claims, "encoding/json")));
  const signing = `${header}.${payload}`;
  const spec = ALGORITHMS[alg]!;
  if (spec.kind === "none") throw new GoJwtError(NONE_DISALLOWED);
  if (spec.kind === "hmac") {
    if (!JWT_METHODS.includes(method)) throw new GoJwtError("key is of invalid type: HMAC sign expects []byte");
    return `${signing}.${encodeSegment(createHmac(spec.hash!, utf8Bytes(key)).update(signing).digest())}`;
  }
  if (spec.kind === "rsa") {
    const k = parsePrivateKey(key, "rsa");
    checkRsaSize(k);
    return `${signing}.${encodeSegment(cryptoSign(spec.hash!, Buffer.from(signing), k))}`;
  }
  const k = parsePrivateKey(key, "ec");
  if (k.asymmetricKeyDetails?.namedCurve !== spec.curve) throw new GoJwtError("key is invalid");
  return `${signing}.${encodeSegment(cryptoSign(spec.hash!, Buffer.from(signing), { key: k, dsaEncoding: "ieee-p1363" }))}`;
}

// ---- verify -----------------------------------------------------------------------------------

/** What jwt_decode's key function gives golang-jwt for the selected method. */
type VerifyKey = { kind: "hmac"; bytes: Uint8Array } | { kind: "rsa" | "ec"; key: KeyObject } | { kind: "none" };

/** jwt_decode's `keyFuncForMethod`. @throws GoJwtError naming the key problem. */
function verifyKey(method: string, key: string): VerifyKey {
  switch (method) {
    case "ES256":
    case "ES384":
    case "ES512":
      return { kind: "ec", key: prefixed("parse EC public key", () => parsePublicKey(key, "ec")) };
    case "RS256":
    case "RS384":
    case "RS512":
      return { kind: "rsa", key: prefixed("parse RSA public key", () => parsePublicKey(key, "rsa")) };
    case "HS256":
    case "HS384":
    case "HS512":
      return { kind: "hmac", bytes: utf8Bytes(key) };
    case "None":
      return { kind: "none" };
    default:
      throw new GoJwtError(`unsupported signing method: ${method}`);
  }
}

function prefixed<T>(prefix: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw new GoJwtError(`${prefix}: ${(err as Error).message}`);
  }
}

/** encoding/json's Unmarshal into a map (goccy's texts where encoding/json's differ: see the module tests). */
function decodeJsonObject(bytes: Uint8Array, what: "header" | "claim", goType: string): Record<string, unknown> | null {
  let value: unknown;
  try {
    value = JSON.parse(utf8String(bytes), (_k, v) => {
      if (typeof v === "string") return wellFormed(v);
      if (typeof v === "number" && !Number.isFinite(v)) throw new Error("json: cannot unmarshal number into Go value of type float64");
      return v;
    });
  } catch (err) {
    throw new GoJwtError(`token is malformed: could not JSON decode ${what}: ${jsonErrorText(err as Error)}`);
  }
  if (value === null) return null;
  if (typeof value !== "object" || Array.isArray(value)) {
    const kind = Array.isArray(value) ? "array" : typeof value === "number" ? "number" : typeof value === "boolean" ? "bool" : "string";
    throw new GoJwtError(`token is malformed: could not JSON decode ${what}: json: cannot unmarshal ${kind} into Go value of type ${goType}`);
  }
  return goObject(new Map(Object.entries(value as Record<string, unknown>)));
}

/** A parse error of JSON.parse in Go's words where they coincide; otherwise JSON.parse's own. */
function jsonErrorText(err: Error): string {
  if (err.message.startsWith("json: ")) return err.message;
  if (/end of (JSON )?input|Unexpected EOF/i.test(err.message)) return "unexpected end of JSON input";
  return err.message;
}

/**
 * Verifies and decodes a compact token as jwt_decode does (golang-jwt `jwt.Parse` with the key of
 * `method`): the token's own `alg` picks the check, the key must be of its kind; `exp` and `nbf`
 * (float seconds, whole-second precision, no leeway) are checked against `nowMs`.
 * @returns the claims, keys in Go's order.
 * @throws GoJwtError `token verification failed: …` with golang-jwt's text (or the key's problem).
 */
export function verifyGoJwt(token: string, method: string, key: string, nowMs: number = Date.now()): Record<string, unknown> {
  const k = verifyKey(method, key);
  try {
    return parse(token, k, nowMs);
  } catch (err) {
    if (err instanceof GoJwtError) throw new GoJwtError(`token verification failed: ${err.message}`);
    throw err;
  }
}

function parse(token: string, key: VerifyKey, nowMs: number): Record<string, unknown> {
  const parts = token.split(".");
  if (parts.length !== 3) throw new GoJwtError("token is malformed: token contains an invalid number of segments");
  const segment = (i: number, what: string) => {
    try {
      return decodeSegment(parts[i]!);
    } catch (err) {
      throw new GoJwtError(`token is malformed: could not base64 decode ${what}: ${(err as Error).message}`);
    }
  };
  const header = decodeJsonObject(segment(0, "header"), "header", "map[string]interface {}");
  const claims = decodeJsonObject(segment(1, "claim"), "claim", "jwt.MapClaims") ?? {};
  const alg = header?.alg;
  if (typeof alg !== "string") throw new GoJwtError("token is unverifiable: signing method (alg) is unspecified");
  const spec = Object.hasOwn(ALGORITHMS, alg) ? ALGORITHMS[alg]! : undefined;
  if (!spec) throw new GoJwtError("token is unverifiable: signing method (alg) is unavailable");
  const signature = segment(2, "signature");
  const signing = Buffer.from(`${parts[0]}.${parts[1]}`);
  const invalid = (why: string) => new GoJwtError(`token signature is invalid: ${why}`);
  switch (spec.kind) {
    case "hmac": {
      if (key.kind !== "hmac") throw invalid("key is of invalid type: HMAC verify expects []byte");
      const mac = createHmac(spec.hash!, key.bytes).update(signing).digest();
      if (mac.length !== signature.length || !mac.equals(Buffer.from(signature))) throw invalid("signature is invalid");
      break;
    }
    case "rsa":
    case "pss": {
      if (key.kind !== "rsa") throw invalid("key is of invalid type: RSA verify expects *rsa.PublicKey");
      const bits = key.key.asymmetricKeyDetails?.modulusLength ?? 0;
      if (bits < 1024) throw invalid(insecureRsa(bits));
      const options = spec.kind === "pss" ? { key: key.key, padding: 6 /* RSA_PKCS1_PSS_PADDING */, saltLength: -2 /* auto */ } : key.key;
      if (!cryptoVerify(spec.hash!, signing, options, signature)) throw invalid("crypto/rsa: verification error");
      break;
    }
    case "ecdsa": {
      if (key.kind !== "ec") throw invalid("key is of invalid type: ECDSA verify expects *ecdsa.PublicKey");
      if (signature.length !== 2 * spec.keySize! || !ecdsaVerify(spec, signing, key.key, signature)) throw invalid("crypto/ecdsa: verification error");
      break;
    }
    case "eddsa":
      throw invalid("key is of invalid type: ed25519 verify expects ed25519.PublicKey");
    case "none":
      if (key.kind !== "none") throw invalid(NONE_DISALLOWED);
      if (signature.length !== 0) throw invalid("token is unverifiable: 'none' signing method with non-empty signature");
      break;
  }
  checkTimes(claims, nowMs);
  return claims;
}

/** ECDSA over the key's own curve; a signature for another curve's size fails as in Go. */
function ecdsaVerify(spec: { hash?: string; keySize?: number }, signing: Buffer, key: KeyObject, signature: Uint8Array): boolean {
  const curveSize = { prime256v1: 32, secp384r1: 48, secp521r1: 66 }[key.asymmetricKeyDetails?.namedCurve ?? ""] ?? 0;
  // Go takes r and s from the token's halves as big integers, whatever the key's curve.
  const half = spec.keySize!;
  const r = stripZeros(signature.subarray(0, half));
  const s = stripZeros(signature.subarray(half));
  if (r.length > curveSize || s.length > curveSize) return false;
  const fixed = new Uint8Array(2 * curveSize);
  fixed.set(r, curveSize - r.length);
  fixed.set(s, 2 * curveSize - s.length);
  try {
    return cryptoVerify(spec.hash!, signing, { key, dsaEncoding: "ieee-p1363" }, fixed);
  } catch {
    return false;
  }
}

function stripZeros(b: Uint8Array): Uint8Array {
  let i = 0;
  while (i < b.length && b[i] === 0) i++;
  return b.subarray(i);
}

/** golang-jwt's default Validator: `exp` (now before it) and `nbf` (now not before it), errors joined. */
function checkTimes(claims: Record<string, unknown>, nowMs: number): void {
  const errors: string[] = [];
  // NumericDate: whole seconds, rounded down; 0 counts as absent; another type is an error.
  const check = (name: string, failed: (seconds: number) => boolean, why: string) => {
    if (!Object.hasOwn(claims, name)) return;
    const v = claims[name];
    if (typeof v !== "number") return void errors.push(`invalid type for claim: ${name} is invalid`);
    if (v !== 0 && failed(Math.floor(v))) errors.push(why);
  };
  check("exp", (s) => !(nowMs < s * 1000), "token is expired");
  check("nbf", (s) => nowMs < s * 1000, "token is not valid yet");
  if (errors.length > 0) throw new GoJwtError(`token has invalid claims: ${errors.join(", ")}`);
}
