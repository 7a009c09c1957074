/**
 * `jwt_decode` — "JWT Decoder" (Go encoding-module `components/jwt/verify`): verifies
 * `request.token` with `request.key` and emits `{context, claims}` on `response`.
 *
 * Verification is golang-jwt v5's `jwt.Parse` (src/golang/jwt.ts, compared with golang-jwt in
 * test/conformance/encoding): the key is read by `signingMethod` (HS*: the key's UTF-8 bytes;
 * RS*: an RSA public key as SPKI, PKCS#1 or a certificate; ES*: an EC public key as SPKI or a
 * certificate; None: unsigned tokens allowed), the token's own `alg` picks the check and must suit
 * that key (RS* also accepts PS* tokens), and `exp` and `nbf` are checked to the second without
 * leeway (`iat` is not). Failures — `token verification failed: token has invalid claims: token
 * is expired`, a key that does not parse (`parse RSA public key: …`), an unknown method — fail the
 * hop or, with `enableErrorPort`, go to `error` `{context, error}`.
 */
import {
  defineCodecComponent,
  GoJwtError,
  jwtClaimsSchema,
  jwtSigningMethodField,
  mark,
  toPlatformSchema,
  Type,
  verifyGoJwt,
  withGoClaimsDef,
  type Static,
} from "tinyhost";

const Request = Type.Object(
  {
    context: Type.Optional(mark(Type.Unknown({ $id: "Context" }), { configurable: true, title: "Context", description: "Arbitrary message to pass through" })),
    signingMethod: jwtSigningMethodField(),
    token: Type.String({ title: "Token", description: "JWT token to verify and decode" }),
    key: Type.String({ title: "Key", description: "Plain text secret or PEM formatted public key", format: "textarea" }),
  },
  { $id: "Request" },
);

const Response = Type.Object(
  {
    context: Type.Optional(Type.Unknown({ $id: "Context" })),
    claims: Type.Optional(jwtClaimsSchema("Claims", { configurable: true, title: "Claims", description: "Decoded JWT claims" }, false)),
  },
  { $id: "Response" },
);

const RESPONSE_DEFAULT = { context: null, claims: null } as unknown as Static<typeof Response>;

export default defineCodecComponent({
  info: { name: "jwt_decode", description: "JWT Decoder", info: "Verifies and decodes JWT token", tags: ["jwt"] },
  request: { schema: Request, default: { context: null, signingMethod: "HS256", token: "", key: "" } },
  response: { schema: Response, default: RESPONSE_DEFAULT, rawSchema: withGoClaimsDef(toPlatformSchema(Response, RESPONSE_DEFAULT), "Claims", false) },
  settingsDescription: "If error happens, error port will emit an error message",
  failure: GoJwtError,
  run: (data) => ({ claims: verifyGoJwt(data.token, data.signingMethod, data.key) }),
});
