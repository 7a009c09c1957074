/**
 * Node naming and module matching (runtime-spec §1.9, §6, §8). Expected values come from the Go
 * SDK's own tests (pkg/utils/sanitize_test.go), components.md §6.1, and md5sum(1) for hashes.
 */
import { describe, expect, test } from "bun:test";
import {
  InvalidNodeNameError,
  flowHashPrefix,
  generateNodeName,
  nameMatches,
  parseFullName,
  sanitizeIdentity,
  sanitizeResourceName,
} from "../../../src/core/api/naming.ts";

describe("sanitizeResourceName", () => {
  test("a long name keeps its last 48 characters and never starts with the separator it was cut on", () => {
    // Go sanitize_test.go "long name truncating onto a separator".
    expect(sanitizeResourceName("Playground a84afb40: When a webhook is hit, post the body to a Slack channel")).toBe(
      "webhook-is-hit-post-the-body-to-a-slack-channel",
    );
  });

  test("a long pod name keeps its unique suffix", () => {
    // Last 48 characters, as `tail -c 48` gives them.
    expect(sanitizeResourceName("tinysystems-http-module-v0-controller-manager-67fc65b5bc-6mdh8")).toBe("tp-module-v0-controller-manager-67fc65b5bc-6mdh8");
  });

  test("a short name is lowercased with punctuation and spaces turned into dashes", () => {
    expect(sanitizeResourceName("What is the capital of France?")).toBe("what-is-the-capital-of-france");
  });

  test("leading and trailing punctuation is trimmed", () => {
    expect(sanitizeResourceName("  -- Hello, World! --  ")).toBe("hello-world");
  });

  test("runs of separators collapse to one dash", () => {
    expect(sanitizeResourceName("a___b...c   d")).toBe("a-b-c-d");
  });

  test("a module name with a publisher becomes a dashed slug", () => {
    expect(sanitizeResourceName("tinysystems/common-module-v0")).toBe("tinysystems-common-module-v0");
  });

  test("results are RFC 1123 labels of at most 48 characters", () => {
    const rfc1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
    for (const s of ["Ünïcödé — names ✓ here", "x".repeat(100) + "!", "!" + "y".repeat(47) + "-z", "A/B:C"]) {
      const out = sanitizeResourceName(s);
      expect({ s, out, ok: rfc1123.test(out) && out.length <= 48 }).toEqual({ s, out, ok: true });
    }
  });
});

describe("sanitizeIdentity", () => {
  test("lowercases and dashes without trimming or truncating", () => {
    const host = "TinySystems_HTTP.module-v0-controller-manager-67fc65b5bc-6mdh8-extra-long-suffix-";
    expect(sanitizeIdentity(host)).toBe("tinysystems-http-module-v0-controller-manager-67fc65b5bc-6mdh8-extra-long-suffix-");
  });
});

describe("parseFullName", () => {
  test("returns the module and component segments of a node name", () => {
    expect(parseFullName("3f9c2e1a.tinysystems-common-module-v0.router-4be1c")).toEqual({
      module: "tinysystems-common-module-v0",
      component: "router-4be1c",
    });
  });

  test("extra dot-separated parts are ignored", () => {
    expect(parseFullName("a.m.c.d")).toEqual({ module: "m", component: "c" });
  });

  test("a name with fewer than three parts throws InvalidNodeNameError naming the node", () => {
    for (const bad of ["router-4be1c", "a.b", ""]) {
      let err: unknown;
      try {
        parseFullName(bad);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InvalidNodeNameError);
      expect((err as InvalidNodeNameError).code).toBe("invalid_node_name");
      expect((err as InvalidNodeNameError).message).toContain(JSON.stringify(bad));
    }
  });
});

describe("nameMatches", () => {
  test("equal names match", () => {
    expect(nameMatches("common-module-v0", "common-module-v0")).toBe(true);
  });

  test("a bare name matches a running module with a publisher prefix", () => {
    expect(nameMatches("http-module-v0", "tinysystems-http-module-v0")).toBe(true);
  });

  test("a prefixed name matches a bare running module", () => {
    expect(nameMatches("tinysystems-http-module-v0", "http-module-v0")).toBe(true);
  });

  test("slash and dash are the same separator, and case is ignored", () => {
    expect(nameMatches("TinySystems/HTTP-Module-v0", "tinysystems-http-module-v0")).toBe(true);
    expect(nameMatches("http-module-v0", "tinysystems/http-module-v0")).toBe(true);
  });

  test("a suffix that does not start at a dash does not match", () => {
    expect(nameMatches("ttp-module-v0", "http-module-v0")).toBe(false);
  });

  test("different modules do not match", () => {
    expect(nameMatches("common-module-v0", "http-module-v0")).toBe(false);
  });

  test("an empty name never matches", () => {
    expect(nameMatches("", "http-module-v0")).toBe(false);
    expect(nameMatches("http-module-v0", "")).toBe(false);
    expect(nameMatches("", "")).toBe(false);
  });
});

describe("generateNodeName", () => {
  test("the flow prefix is the first 8 hex digits of md5(project + flow)", () => {
    // printf '%s' demohello-api-k3x9q | md5sum → c4dd0d2467d0e8b4a1d7d1d80f353c2e
    expect(flowHashPrefix("demo", "hello-api-k3x9q")).toBe("c4dd0d24");
  });

  test("builds <prefix>.<sanitized module>.<sanitized component>- for the API server to complete", () => {
    expect(generateNodeName("demo", "hello-api-k3x9q", "tinysystems/http-module-v0", "http_server")).toBe("c4dd0d24.tinysystems-http-module-v0.http-server-");
  });

  test("a completed generated name parses back to the sanitized module", () => {
    const name = generateNodeName("demo", "flow", "Tiny Host", "router") + "x7k2p";
    expect(parseFullName(name)).toEqual({ module: "tiny-host", component: "router-x7k2p" });
  });
});
