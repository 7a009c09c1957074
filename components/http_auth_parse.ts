/**
 * `http_auth_parse` — "Basic Auth Headers Parser" (http-module basicauth/header-parser,
 * components.md §2.3): finds HTTP Basic credentials (RFC 7617) in a header list — typically an
 * http_server request's `headers` — and always emits once on `out`: `{context, found, user,
 * password}`, `found: false` with empty credentials when no `Authorization: Basic …` header decodes.
 *
 * Differences from Go (docs/compatibility.md): the password is everything after the FIRST colon
 * (RFC 7617 allows colons in it; Go kept only the text up to a second colon), and the scheme name
 * is matched without regard to case (RFC 7235 §2.1; Go wanted exactly "Basic ").
 */
import { defineComponent, HeaderSchema, mark, source, target, Type, type Header } from "tinyhost";

const In = Type.Object(
  {
    context: mark(Type.Unknown({ $id: "Context" }), { configurable: true, title: "Context", description: "Arbitrary message to be send further" }),
    headers: Type.Union([Type.Array(HeaderSchema), Type.Null()], { title: "Headers", description: "HTTP headers list" }),
  },
  { $id: "InMessage" },
);

const Out = Type.Object(
  {
    context: Type.Optional(Type.Unknown({ $id: "Context" })),
    found: Type.Optional(Type.Boolean()),
    user: Type.Optional(Type.String()),
    password: Type.Optional(Type.String()),
  },
  { $id: "OutMessage" },
);

/** Standard base64 with padding, as Go's `base64.StdEncoding` accepts it (Buffer's decoder skips junk). */
const STD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The credentials of the first `Authorization: Basic` header that decodes to `user:password`, if any. */
export function basicCredentials(headers: readonly Header[] | null): { user: string; password: string } | undefined {
  for (const h of headers ?? []) {
    if (h.key.toLowerCase() !== "authorization") continue;
    const m = /^basic (.*)$/is.exec(h.value);
    if (!m || !STD_BASE64.test(m[1]!)) continue;
    const decoded = Buffer.from(m[1]!, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) continue;
    return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  return undefined;
}

export default defineComponent({
  info: {
    name: "http_auth_parse",
    description: "Basic Auth Headers Parser",
    info: "Extracts Basic Auth credentials from HTTP headers. In port receives: context + headers array. Out port always emits: {context, found, user, password}. If Authorization header with 'Basic' scheme found, decodes base64 and sets found=true with user/password. Otherwise found=false.",
    tags: ["HTTP", "Auth"],
  },
  ports: () => [
    target("in", In, { label: "In", position: "left", default: { context: null, headers: null } }),
    source("out", Out, { label: "Out", position: "right", default: { context: null, found: false, user: "", password: "" } }),
  ],
  handle(_ctx, output, _port, data) {
    const creds = basicCredentials(data.headers);
    return output("out", creds ? { context: data.context, found: true, ...creds } : { context: data.context, found: false, user: "", password: "" });
  },
});
