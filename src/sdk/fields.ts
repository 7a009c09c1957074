/**
 * Schema building blocks shared by the bundled components, with the Go modules' JSON names, titles
 * and platform keywords (components.md §0.5, §2; Go `etc.Header`, `etc.ContentType`).
 */
import { Type, type TUnknown, type TUnsafe } from "typebox";
import { mark, unnamed } from "../runtime/schema/keywords.ts";
import { JWT_SIGNING_METHODS } from "../golang/jwt.ts";

/** Options of {@link contextField}. */
export interface ContextFieldOptions {
  /** Editor label; default `"Context"`. */
  title?: string;
  /** The Go type name the def is named after (default `"Context"`; http_server uses `"StartContext"`). */
  $id?: string;
}

/**
 * A passthrough `context` field: any JSON, `configurable` so users can shape it (components.md §0.5);
 * published as the def `Context` (Go `type Context any`).
 */
export function contextField(description: string, options: ContextFieldOptions = {}): TUnknown {
  return mark(Type.Unknown({ $id: options.$id ?? "Context" }), { configurable: true, title: options.title ?? "Context", description });
}

/** A string field whose published schema is a select over `values` (Go `enum:"a,b"` + `enumTitles`). */
export function stringEnum(values: readonly string[], options: Record<string, unknown> = {}): TUnsafe<string> {
  return Type.Unsafe<string>({ type: "string", enum: [...values], ...options });
}

/** One HTTP header, Go `etc.Header` (`{key, value}`, both required in the editor; def `Header`). */
export const HeaderSchema = Type.Object(
  {
    key: Type.String({ title: "Key", colSpan: "col-span-6" }),
    value: Type.String({ title: "Value", colSpan: "col-span-6" }),
  },
  { $id: "Header" },
);

/** A header as components exchange it. */
export interface Header {
  key: string;
  value: string;
}

/** HTTP methods offered by the editor for http_server requests and http_request (Go enum tag). */
export const HTTP_METHODS = ["GET", "POST", "PATCH", "PUT", "DELETE"] as const;

/** Content types offered by the editor, in Go `etc.ContentType` order. */
export const CONTENT_TYPES = [
  "application/json",
  "application/xml",
  "text/xml",
  "application/x-www-form-urlencoded",
  "multipart/form-data",
  "text/html",
  "text/plain",
] as const;

/**
 * Go `etc.ContentType` schema: a string select with the description its `JSONSchema()` gives;
 * `title` is "Content Type" unless the field's own tag sets another (http_request: "Request Content Type").
 */
export function contentTypeField(title = "Content Type"): TUnsafe<string> {
  return stringEnum(CONTENT_TYPES, { title, description: "Content type of the response" });
}

/**
 * The SDK's canonical error-port payload (Go `module.ErrorMessage`, runtime-spec §1.6): `{context,
 * error, retryable}` with Go's titles and descriptions, `context` an unnamed configurable `any`
 * (published inline, as Go does). Build the value with `errorPayload(err, context)`.
 */
export const ErrorMessageSchema = Type.Object(
  {
    context: Type.Optional(
      unnamed(
        mark(Type.Unknown(), {
          configurable: true,
          title: "Context",
          description: "Original request payload — passed through unchanged so a recovery flow, or the retry component, can re-invoke the upstream.",
        }),
      ),
    ),
    error: Type.Optional(Type.String({ title: "Error", description: "Human-readable failure message." })),
    retryable: Type.Optional(
      Type.Boolean({
        title: "Retryable",
        description:
          "True when a backoff retry could clear the failure (transient: 5xx, 429, dropped connection, timeout). Derived from the error via module.Retryable / module.IsRetryable.",
      }),
    ),
  },
  { $id: "ErrorMessage" },
);
export { JWT_SIGNING_METHODS };

/**
 * Go `SigningMethod.JSONSchema()` of the JWT components: a string select over the methods, default
 * HS256; `options` are the tags of the field holding it (the encoder's `description:""`).
 */
export function jwtSigningMethodField(options: Record<string, unknown> = {}): TUnsafe<string> {
  return Type.Unsafe<string>({ type: "string", title: "Signing Method", default: "HS256", enum: [...JWT_SIGNING_METHODS], ...options });
}

/** The registered claims' properties exactly as Go's `JSONSchema()` returns them (no propertyOrder, items inline). */
function rawClaimProperties(expDescription: boolean): Record<string, unknown> {
  return {
    sub: { title: "Subject", type: "string" },
    iss: { title: "Issuer", type: "string" },
    aud: { title: "Audience", type: "array", items: { type: "string" } },
    exp: { title: "ExpiresAt", type: "integer", ...(expDescription ? { description: "Expiration time" } : {}) },
    nbf: { title: "NotBefore", type: "integer" },
    iat: { title: "IssuedAt", type: "integer" },
    jti: { title: "ID", type: "string" },
  };
}

/**
 * A port's platform schema with the claims def `def` as Go publishes it: a type's own
 * `JSONSchema()` is published verbatim by the Go SDK, so its properties carry no `propertyOrder`
 * and `aud`'s items stay inline (no `String` def). Returns a patched copy.
 */
export function withGoClaimsDef<S extends { $defs?: Record<string, Record<string, unknown>> }>(platform: S, def: string, expDescription: boolean): S {
  const copy = structuredClone(platform);
  const target = copy.$defs?.[def];
  if (target) target.properties = rawClaimProperties(expDescription);
  if (copy.$defs && !JSON.stringify({ ...copy.$defs, String: undefined }).includes("#/$defs/String")) delete copy.$defs.String;
  return copy;
}

/**
 * Go `MapClaims.JSONSchema()` / `Claims.JSONSchema()` of the JWT components: an object listing the
 * registered claims of RFC 7519 §4.1 (`exp` described only by the encoder). `$id` is the Go type
 * name; `options` the tags of the field holding it.
 */
export function jwtClaimsSchema($id: string, options: Record<string, unknown>, expDescription: boolean) {
  return Type.Object(
    {
      sub: Type.Optional(Type.String({ title: "Subject" })),
      iss: Type.Optional(Type.String({ title: "Issuer" })),
      aud: Type.Optional(Type.Array(Type.String(), { title: "Audience" })),
      exp: Type.Optional(Type.Integer({ title: "ExpiresAt", ...(expDescription ? { description: "Expiration time" } : {}) })),
      nbf: Type.Optional(Type.Integer({ title: "NotBefore" })),
      iat: Type.Optional(Type.Integer({ title: "IssuedAt" })),
      jti: Type.Optional(Type.String({ title: "ID" })),
    },
    { $id, ...options },
  );
}
