import { expect, test } from "bun:test";
import { KubeApiError, isAlreadyExists, isConflict, isGone, isNotFound, reasonForCode } from "../../../src/k8s/client/index.ts";

test("a Status body gives reason, message and details", () => {
  const e = new KubeApiError({
    verb: "PUT",
    path: "/api/v1/namespaces/a/configmaps/x",
    status: 409,
    body: {
      kind: "Status",
      status: "Failure",
      reason: "Conflict",
      code: 409,
      message: "the object has been modified",
      details: { name: "x", kind: "configmaps" },
    },
  });
  expect(e.code).toBe("K8S_API");
  expect(e.status).toBe(409);
  expect(e.reason).toBe("Conflict");
  expect(e.serverMessage).toBe("the object has been modified");
  expect(e.details).toEqual({ name: "x", kind: "configmaps" });
  expect(e.message).toBe("PUT /api/v1/namespaces/a/configmaps/x: 409 Conflict: the object has been modified");
  expect(isConflict(e)).toBe(true);
  expect(isAlreadyExists(e)).toBe(false);
});

test("AlreadyExists (also 409) is not a conflict", () => {
  const e = new KubeApiError({ verb: "POST", path: "/p", status: 409, body: { kind: "Status", reason: "AlreadyExists", code: 409 } });
  expect(isAlreadyExists(e)).toBe(true);
  expect(isConflict(e)).toBe(false);
});

test("without a Status body the reason comes from the HTTP code and the text becomes the message", () => {
  const e = new KubeApiError({ verb: "GET", path: "/p", status: 404, text: "404 page not found\n" });
  expect(e.reason).toBe("NotFound");
  expect(e.serverMessage).toBe("404 page not found");
  expect(isNotFound(e)).toBe(true);
});

test("a Status with an empty reason falls back to the HTTP code's reason", () => {
  const e = new KubeApiError({ verb: "GET", path: "/p", status: 403, body: { kind: "Status", reason: "", message: "forbidden: User cannot get" } });
  expect(e.reason).toBe("Forbidden");
});

test("HTTP codes map to Kubernetes reasons", () => {
  expect([400, 401, 403, 404, 409, 410, 422, 429, 500, 503, 504, 418].map(reasonForCode)).toEqual([
    "BadRequest",
    "Unauthorized",
    "Forbidden",
    "NotFound",
    "Conflict",
    "Gone",
    "Invalid",
    "TooManyRequests",
    "InternalError",
    "ServiceUnavailable",
    "Timeout",
    "Unknown",
  ]);
});

test("retryAfterSeconds comes from details, else from the Retry-After header", () => {
  expect(new KubeApiError({ verb: "GET", path: "/p", status: 429, body: { kind: "Status", details: { retryAfterSeconds: 3 } } }).retryAfterSeconds).toBe(3);
  expect(new KubeApiError({ verb: "GET", path: "/p", status: 429, text: "slow down", retryAfter: "7" }).retryAfterSeconds).toBe(7);
});

test("isGone holds for 410 with reason Expired as well as Gone", () => {
  expect(isGone(new KubeApiError({ verb: "GET", path: "/p", status: 410, body: { kind: "Status", reason: "Expired", code: 410 } }))).toBe(true);
  expect(isGone(new Error("x"))).toBe(false);
});
