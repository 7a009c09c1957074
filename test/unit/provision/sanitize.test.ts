import { describe, expect, test } from "bun:test";
import { clusterScopedName, MAX_RELEASE_NAME_LENGTH, sanitizeReleaseName } from "../../../src/provision/index.ts";
import { sanitizeResourceName } from "../../../src/core/api/index.ts";

describe("sanitizeReleaseName (provision.md §3.1)", () => {
  test("turns a publisher-qualified module name into a release name", () => {
    expect(sanitizeReleaseName("tinysystems/http-module-v0")).toBe("tinysystems-http-module-v0");
  });

  test("lowercases and collapses every run of other characters into one dash", () => {
    expect(sanitizeReleaseName("My__Shop  Module!!v2")).toBe("my-shop-module-v2");
  });

  test("trims dashes at both ends", () => {
    expect(sanitizeReleaseName("--/shop/--")).toBe("shop");
  });

  test("keeps the first 53 characters and trims a dash left at the cut", () => {
    const long = `${"a".repeat(52)}-${"b".repeat(20)}`;
    expect(sanitizeReleaseName(long)).toBe("a".repeat(52));
    const exact = "c".repeat(60);
    expect(sanitizeReleaseName(exact)).toHaveLength(MAX_RELEASE_NAME_LENGTH);
  });

  test("returns empty for a name without letters or digits", () => {
    expect(sanitizeReleaseName("/// ---")).toBe("");
  });

  test("differs from the SDK sanitizer on long names: first 53 here, last 48 there", () => {
    const long = `head-${"x".repeat(60)}-tail`;
    expect(sanitizeReleaseName(long).startsWith("head-")).toBe(true);
    expect(sanitizeResourceName(long).endsWith("-tail")).toBe(true);
  });
});

describe("clusterScopedName (chart _helpers.tpl)", () => {
  test("joins release and namespace", () => {
    expect(clusterScopedName("shop", "tinysystems")).toBe("shop-tinysystems");
  });

  test("caps at 63 characters without a trailing dash", () => {
    const name = clusterScopedName("r".repeat(62), "ns");
    expect(name).toBe("r".repeat(62));
    expect(clusterScopedName("r".repeat(40), "n".repeat(40))).toHaveLength(63);
  });
});
