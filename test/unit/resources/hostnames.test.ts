import { describe, expect, test } from "bun:test";
import {
  InvalidHostnameError,
  InvalidPortError,
  autoHostname,
  normalizeHostname,
  normalizeHostnames,
  tlsSecretName,
  validatePort,
} from "../../../src/k8s/resources/index.ts";

function rejected(fn: () => unknown): InvalidHostnameError {
  try {
    fn();
  } catch (e) {
    if (e instanceof InvalidHostnameError) return e;
    throw e;
  }
  throw new Error("expected an InvalidHostnameError");
}

describe("normalizeHostname", () => {
  test("lowercases and removes one trailing dot", () => {
    expect(normalizeHostname("Shop.Example.COM.")).toBe("shop.example.com");
  });

  test("accepts a leading *. wildcard label", () => {
    expect(normalizeHostname("*.apps.example.com")).toBe("*.apps.example.com");
  });

  test.each([
    ["", "is empty"],
    [".", "is empty"],
    ["a..b.com", "empty label"],
    [".a.com", "empty label"],
    ["under_score.com", 'label "under_score"'],
    ["-lead.com", 'label "-lead"'],
    ["trail-.com", 'label "trail-"'],
    ["sp ace.com", 'label "sp ace"'],
    ["api.*.example.com", "wildcard is allowed only as the whole first label"],
    ["*a.example.com", "wildcard is allowed only as the whole first label"],
    ["*.*.example.com", "wildcard is allowed only as the whole first label"],
    ["*", "needs a domain after it"],
    ["192.168.0.1", "not an IP address"],
    ["ünïcode.com", 'label "ünïcode"'],
  ])("rejects %j (%s) naming the value", (input, why) => {
    const err = rejected(() => normalizeHostname(input));
    expect(err.code).toBe("INVALID_HOSTNAME");
    expect(err.hostname).toBe(input);
    expect(err.message).toContain(JSON.stringify(input));
    expect(err.message).toContain(why);
  });

  test("a 63-character label passes and a 64-character label fails", () => {
    expect(normalizeHostname(`${"a".repeat(63)}.com`)).toBe(`${"a".repeat(63)}.com`);
    expect(rejected(() => normalizeHostname(`${"a".repeat(64)}.com`)).message).toContain("at most 63");
  });

  test("a name longer than 253 characters fails", () => {
    const long = `${"abcdefghi.".repeat(26)}com`;
    expect(rejected(() => normalizeHostname(long)).message).toContain("at most 253");
  });

  test("a name whose <name>-tls secret would exceed 253 characters fails", () => {
    expect(normalizeHostname(`${"abcdefghi.".repeat(24)}abcdefghi`)).toHaveLength(249);
    expect(rejected(() => normalizeHostname(`${"abcdefghi.".repeat(25)}com`)).message).toContain("TLS secret name");
  });

  test("a non-string value is rejected", () => {
    expect(rejected(() => normalizeHostname(42)).message).toContain("must be a string");
  });
});

describe("normalizeHostnames", () => {
  test("drops duplicates after normalizing, keeping first-seen order", () => {
    expect(normalizeHostnames(["b.com", "A.com", "B.com.", "a.com"])).toEqual(["b.com", "a.com"]);
  });
});

describe("autoHostname", () => {
  test("joins the auto name and the suffix with a hyphen", () => {
    expect(autoHostname("Checkout", "x.example.com")).toBe("checkout-x.example.com");
  });

  test("an unusable result names the composed value, the auto name and the suffix", () => {
    const err = rejected(() => autoHostname("bad name", "x.example.com"));
    expect(err.hostname).toBe("bad name-x.example.com");
    expect(err.message).toContain('auto hostname "bad name"');
    expect(err.message).toContain('ingress suffix "x.example.com"');
  });
});

describe("tlsSecretName", () => {
  test("is <hostname>-tls", () => {
    expect(tlsSecretName("shop.example.com")).toBe("shop.example.com-tls");
  });

  test("writes a leading * as 'wildcard'", () => {
    expect(tlsSecretName("*.example.com")).toBe("wildcard.example.com-tls");
  });
});

describe("validatePort", () => {
  test("accepts 1 and 65535", () => {
    expect(validatePort(1)).toBe(1);
    expect(validatePort(65535)).toBe(65535);
  });

  test.each([[0], [65536], [-1], [80.5], [Number.NaN], ["8080"], [null], [undefined]])("rejects %p", (port) => {
    expect(() => validatePort(port)).toThrow(InvalidPortError);
  });
});
