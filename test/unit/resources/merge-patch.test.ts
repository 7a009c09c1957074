import { describe, expect, test } from "bun:test";
import { createMergePatch } from "../../../src/k8s/resources/index.ts";

describe("createMergePatch (RFC 7386 diff)", () => {
  test("equal values give undefined (nothing to send)", () => {
    expect(createMergePatch({ a: 1, b: { c: [1, 2] } }, { a: 1, b: { c: [1, 2] } })).toBeUndefined();
  });

  test("changed and added keys carry their new values, nested objects only their changes", () => {
    expect(createMergePatch({ a: 1, m: { k: "v", j: "w" } }, { a: 2, m: { k: "v", j: "x" }, n: true })).toEqual({ a: 2, m: { j: "x" }, n: true });
  });

  test("removed keys carry null", () => {
    expect(createMergePatch({ a: 1, m: { k: "v" } }, { m: {} })).toEqual({ a: null, m: { k: null } });
  });

  test("arrays are replaced whole", () => {
    expect(createMergePatch({ ports: [{ n: 1 }, { n: 2 }] }, { ports: [{ n: 1 }] })).toEqual({ ports: [{ n: 1 }] });
  });

  test("a value where there was none is sent whole; none where there was one is null", () => {
    expect(createMergePatch(undefined, { a: 1 })).toEqual({ a: 1 });
    expect(createMergePatch({ a: 1 }, undefined)).toBeNull();
  });
});
