/**
 * `jwt_encode` — "JWT Encoder" (Go encoding-module `components/jwt/encode`): signs `request.claims`
 * with `request.key` by `request.signingMethod` and emits `{context, token}` on `response`.
 *
 * Tokens are golang-jwt v5's (src/golang/jwt.ts, compared with golang-jwt in
 * test/conformance/encoding): header `{"alg":…,"typ":"JWT"}`, claims written by encoding/json
 * (sorted keys, HTML escaped), base64url without padding. HS256/384/512 sign with the key's UTF-8
 * bytes; RS256/384/512 with an RSA private key in PEM (PKCS#1 or PKCS#8, at least 1024 bits);
 * ES256/384/512 with an EC private key of the method's curve (SEC 1 or PKCS#8). `None` is refused,
 * as golang-jwt refuses unsigned tokens. Failures fail the hop or, with `enableErrorPort`, go to
 * `error` `{context, error}` with golang-jwt's text.
 *
 * Deliberate difference (docs/compatibility.md "encoding-module"): a key that does not parse is
 * reported (`invalid key: Key must be a PEM encoded PKCS1 or PKCS8 key`, `key is not a valid RSA
 * private key`); Go drops the parse error and signs with a nil key, which crashes its handler.
 */
import { defineCodecComponent, GoJwtError, jwtClaimsSchema, jwtSigningMethodField, mark, signGoJwt, toPlatformSchema, Type, withGoClaimsDef } from "tinyhost";

const context = () =>
  mark(Type.Unknown({ $id: "Context" }), { configurable: true, title: "Context", description: "Arbitrary message to be send alongside with encoded message" });
const key = () => Type.String({ title: "Private Key", description: "Plain text or PEM formatted private key", format: "textarea" });

/** What `request` publishes (Go `Request`). */
const RequestPublished = Type.Object(
  {
    context: Type.Optional(context()),
    signingMethod: jwtSigningMethodField({ description: "" }),
    claims: jwtClaimsSchema("MapClaims", { configurable: true, title: "Claims", description: "" }, true),
    key: key(),
  },
  { $id: "Request" },
);

/** What `request` accepts: claims are any JSON object (Go `MapClaims` is a map), null included. */
const Request = Type.Object(
  {
    context: Type.Optional(Type.Unknown()),
    signingMethod: Type.String(),
    claims: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
    key: Type.String(),
  },
  { $id: "Request" },
);

const Response = Type.Object({ context: Type.Optional(Type.Unknown({ $id: "Context" })), token: Type.Optional(Type.String()) }, { $id: "Response" });

const REQUEST_DEFAULT = { context: null, signingMethod: "HS256", claims: null, key: "" };

export default defineCodecComponent({
  info: { name: "jwt_encode", description: "JWT Encoder", info: "Generates JWT token", tags: ["jwt"] },
  request: { schema: Request, default: REQUEST_DEFAULT, rawSchema: withGoClaimsDef(toPlatformSchema(RequestPublished, REQUEST_DEFAULT), "Mapclaims", true) },
  response: { schema: Response, default: { context: null, token: "" } },
  failure: GoJwtError,
  run: (data) => ({ token: signGoJwt(data.signingMethod, data.claims, data.key) }),
});
