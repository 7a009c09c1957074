/**
 * `xml_encode` — "XML Encoder" (Go encoding-module `components/xml/encode`): encodes
 * `request.document` as XML and emits `{context, encoded}` on `response`.
 *
 * The text is Go's `encoding/xml` encoding of the document (src/golang/xml.ts, checked against Go
 * in test/conformance/encoding): a scalar is an element named by its Go type (`<string>hi</string>`,
 * `<float64>1.5</float64>`), null is nothing, a list its elements in turn.
 *
 * Deliberate difference (docs/compatibility.md "encoding-module"): an object's keys, sorted, become
 * child elements (a list repeats the element, null is omitted) where Go refuses every object with
 * `xml: unsupported type: map[string]interface {}`; a key that is not an XML name fails the hop,
 * or with `enableErrorPort` goes to `error`.
 */
import { defineDocumentEncoder, encodeGoXml, GoXmlError } from "tinyhost";

export default defineDocumentEncoder({
  info: { name: "xml_encode", description: "XML Encoder", info: "Encodes input document with XML", tags: ["xml"] },
  failure: GoXmlError,
  encode: (document) => encodeGoXml(document),
});
