/**
 * The console's API has no login: it listens on a loopback address only, so whoever can reach it
 * already runs code on this machine. Two browser attacks remain, and this middleware stops both:
 * - DNS rebinding (a web page whose host name resolves to 127.0.0.1): the `Host` header must be a
 *   loopback name with the console's port (the WHATWG Fetch spec sends the page's host name);
 * - cross-site requests (a page POSTing to 127.0.0.1): a request that changes something must be
 *   `application/json` (a cross-site fetch of that type needs a CORS preflight, which is never
 *   answered) and its `Origin`, when sent, must be the console's own; `Sec-Fetch-Site: cross-site`
 *   is refused outright.
 * References: OWASP "Cross-Site Request Forgery Prevention Cheat Sheet" (custom content type,
 * Origin check, Fetch Metadata), Fetch spec §3.1 `Sec-Fetch-Site`.
 */
import type { MiddlewareHandler } from "hono";

/** Host names that mean this machine. */
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** True when `host` (a `Host` header value) is a loopback name with port `port`. */
export function isLoopbackHost(host: string | undefined, port: number): boolean {
  if (!host) return false;
  const i = host.lastIndexOf(":");
  if (i < 0) return false;
  return LOOPBACK_HOSTS.has(host.slice(0, i).toLowerCase()) && host.slice(i + 1) === String(port);
}

/** The guard for a console listening on `port()` (read per request: the port is known once bound). */
export function loopbackGuard(port: () => number): MiddlewareHandler {
  return async (c, next) => {
    const p = port();
    if (!isLoopbackHost(c.req.header("host"), p)) return c.json({ error: `the console answers only requests to 127.0.0.1:${p} or localhost:${p}` }, 403);
    if (c.req.header("sec-fetch-site") === "cross-site") return c.json({ error: "cross-site requests are refused" }, 403);
    if (c.req.method !== "GET" && c.req.method !== "HEAD") {
      const origin = c.req.header("origin");
      if (origin !== undefined && !(origin.startsWith("http://") && isLoopbackHost(origin.slice("http://".length), p))) {
        return c.json({ error: `requests from origin ${origin} are refused` }, 403);
      }
      if (!(c.req.header("content-type") ?? "").toLowerCase().startsWith("application/json")) {
        return c.json({ error: "send the body as JSON with Content-Type: application/json" }, 415);
      }
    }
    await next();
  };
}
