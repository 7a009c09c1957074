/**
 * `json_encode` — "JSON Encoder" (Go encoding-module `components/json/encode`): encodes
 * `request.document` as JSON text and emits `{context, encoded}` on `response`.
 *
 * The text is goccy/go-json's `Marshal` of the document (src/golang/json.ts, checked against goccy
 * in test/conformance/encoding): no spaces, object keys sorted, `<` `>` `&` escaped as `\u003c`…,
 * numbers as Go formats float64 (`1e+21`, `1e-07`). A JSON document always encodes, so the error
 * port (with `enableErrorPort`) only ever carries a value that is not JSON data.
 */
import { defineDocumentEncoder, marshalGoJson, GoJsonEncodeError } from "tinyhost";

export default defineDocumentEncoder({
  info: { name: "json_encode", description: "JSON Encoder", info: "Encodes input document with JSON", tags: ["json"] },
  failure: GoJsonEncodeError,
  encode: (document) => marshalGoJson(document),
});
