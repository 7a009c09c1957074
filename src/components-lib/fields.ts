/**
 * Schema building blocks shared by the bundled components, with the Go modules' JSON names, titles
 * and platform keywords (components.md §0.5, §2; Go `etc.Header`, `etc.ContentType`).
 */
import { Type, type TSchema, type TUnknown } from "typebox";
import { mark } from "../runtime/schema/keywords.ts";

/** A passthrough `context` field: any JSON, `configurable` so users can shape it (components.md §0.5). */
export function contextField(description: string, title = "Context"): TUnknown {
  return mark(Type.Unknown(), { configurable: true, title, description });
}

/** A string field whose published schema is a select over `values` (Go `enum:"a,b"` + `enumTitles`). */
export function stringEnum(values: readonly string[], options: Record<string, unknown> = {}): TSchema {
  return Type.Unsafe<string>({ type: "string", enum: [...values], ...options });
}

/** One HTTP header, Go `etc.Header` (`{key, value}`, both required in the editor). */
export const HeaderSchema = Type.Object({
  key: Type.String({ title: "Key", colSpan: "col-span-6" }),
  value: Type.String({ title: "Value", colSpan: "col-span-6" }),
});

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

/** Go `etc.ContentType` schema: a string select titled "Content Type". */
export function contentTypeField(description = "Content type of the response"): TSchema {
  return stringEnum(CONTENT_TYPES, { title: "Content Type", description });
}
