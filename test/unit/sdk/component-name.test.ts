/**
 * The component name rule (src/core/component-name.ts): a name is valid exactly when it survives the
 * node name the platform builds from it and can be read back from that name.
 */
import { describe, expect, test } from "bun:test";
import { defineComponent, InvalidComponentError, target, Type } from "tinyhost";
import { componentNameProblem, isValidComponentName, MAX_COMPONENT_NAME_LENGTH } from "../../../src/core/component-name.ts";
import { generateNodeName, parseFullName } from "../../../src/core/api/naming.ts";

/** Every component the Go modules register (components.md §1, §2) plus our bundled ones. */
const GO_AND_BUNDLED = [
  "router",
  "transform",
  "delay",
  "async",
  "array_split",
  "array_get",
  "array_filter",
  "group_by",
  "collect",
  "inject",
  "kv",
  "debug",
  "display",
  "signal",
  "ticker",
  "cron",
  "retry",
  "budget_guard",
  "run_start",
  "run_status",
  "chat",
  "form",
  "flow_telemetry",
  "http_server",
  "http_request",
  "http_auth_parse",
  "promql_query",
  "logql_query",
  "counter",
];

const INVALID = ["Bad Name!", "Inspect", "http-server", "a.b", "_x", "x_", "a__b", "a b", "café", "x".repeat(MAX_COMPONENT_NAME_LENGTH + 1)];

/** The component name read back from a node name the platform would generate for `name` (suffix stripped, "-" → "_"). */
function readBack(name: string): string {
  const nodeName = `${generateNodeName("proj", "flow", "tinysystems/my-module", name)}4be1c`;
  const { component } = parseFullName(nodeName);
  return component.replace(/-[^-]*$/, "").replaceAll("-", "_");
}

describe("component names", () => {
  test("every Go and bundled component name is valid and reads back from its node name", () => {
    for (const name of GO_AND_BUNDLED) {
      expect(componentNameProblem(name)).toBeUndefined();
      expect(readBack(name)).toBe(name);
    }
  });

  test("each rejected name is one that does not read back from its node name", () => {
    for (const name of INVALID) {
      expect(isValidComponentName(name)).toBe(false);
      expect(readBack(name)).not.toBe(name);
    }
  });

  test("a 48-character name is the longest accepted", () => {
    const name = `a${"_b".repeat(23)}c`;
    expect(name).toHaveLength(MAX_COMPONENT_NAME_LENGTH);
    expect(componentNameProblem(name)).toBeUndefined();
    expect(readBack(name)).toBe(name);
    expect(componentNameProblem(`${name}d`)).toContain("is 49 characters long");
  });

  test("the problem quotes the value, says what breaks, states the rule and suggests a spelling", () => {
    const p = componentNameProblem("Bad Name!")!;
    expect(p).toStartWith('"Bad Name!" has upper-case letters');
    expect(p).toContain('lowercase letters and digits in words joined by single "_"');
    expect(p).toContain('(try "bad_name")');
    expect(componentNameProblem("http-server")).toContain('contains "-"');
    expect(componentNameProblem("http-server")).toContain('(try "http_server")');
    expect(componentNameProblem("a.b")).toContain('contains "."');
    expect(componentNameProblem("a b!")).toContain('contains " ", "!"');
    expect(componentNameProblem("a__b")).toContain('has "__"');
    expect(componentNameProblem("!!!")).not.toContain("(try");
  });

  test("defineComponent rejects an invalid name with INVALID_COMPONENT naming the value", () => {
    const spec = (name: string) => ({ info: { name, description: "", info: "" }, ports: () => [target("in", Type.Object({}))], handle: () => undefined });
    expect(() => defineComponent(spec("Bad Name!"))).toThrow(InvalidComponentError);
    expect(() => defineComponent(spec("Bad Name!"))).toThrow('defineComponent: info.name "Bad Name!" has upper-case letters');
    expect(defineComponent(spec("inspect_v2")).info.name).toBe("inspect_v2");
  });
});
