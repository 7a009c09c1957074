import { describe, expect, test } from "bun:test";
import { parseFlags, ProvisionInputError, type FlagSpec } from "../../../src/provision/index.ts";

const SPEC: FlagSpec = { namespace: "string", image: "string", nats: "boolean", "dry-run": "boolean" };

describe("parseFlags", () => {
  test("reads --flag value, --flag=value and -n", () => {
    expect(parseFlags(["--image", "a:1", "-n", "ns"], SPEC)).toEqual({ image: "a:1", namespace: "ns" });
    expect(parseFlags(["--image=a:2"], SPEC)).toEqual({ image: "a:2" });
  });

  test("reads booleans as --flag, --flag=false and --no-flag", () => {
    expect(parseFlags(["--dry-run", "--nats=false"], SPEC)).toEqual({ "dry-run": true, nats: false });
    expect(parseFlags(["--no-nats"], SPEC)).toEqual({ nats: false });
  });

  test("refuses unknown flags, missing values and positional arguments", () => {
    expect(() => parseFlags(["--bogus"], SPEC)).toThrow(ProvisionInputError);
    expect(() => parseFlags(["--image"], SPEC)).toThrow("--image needs a value");
    expect(() => parseFlags(["--image", "--nats"], SPEC)).toThrow("--image needs a value");
    expect(() => parseFlags(["shop"], SPEC)).toThrow("not a flag");
    expect(() => parseFlags(["--nats=maybe"], SPEC)).toThrow('takes true or false, got "maybe"');
  });
});
