/**
 * Schema building blocks shared by the bundled components, with the Go modules' JSON names, titles
 * and platform keywords (components.md §0.5, §2; Go `etc.Header`, `etc.ContentType`).
 */
import { Type, type TUnknown, type TUnsafe } from "typebox";
import { mark, unnamed } from "../runtime/schema/keywords.ts";

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
        description: "True when a backoff retry could clear the failure (transient: 5xx, 429, dropped connection, timeout). Derived from the error via module.Retryable / module.IsRetryable.",
      }),
    ),
  },
  { $id: "ErrorMessage" },
);
