/** The one flag parser of the `tinyhost` commands (src/cli/flags.ts, over node:util parseArgs). */
import { describe, expect, test } from "bun:test";
import { FlagError, parseFlags } from "../../../src/cli/flags.ts";

const SPEC = {
  namespace: { type: "string", short: "n" },
  image: { type: "string" },
  dir: { type: "string", valueName: "a directory" },
  nats: { type: "boolean" },
  "dry-run": { type: "boolean" },
} as const;

const messageOf = (args: string[], positionals = false) => {
  try {
    parseFlags(args, SPEC, { positionals });
  } catch (e) {
    expect(e).toBeInstanceOf(FlagError);
    expect((e as FlagError).code).toBe("USAGE");
    return (e as Error).message;
  }
  throw new Error(`no error for ${JSON.stringify(args)}`);
};

describe("parseFlags", () => {
  test("reads --flag value, --flag=value, -f value and -fvalue", () => {
    expect(parseFlags(["--image", "a:1", "-n", "ns"], SPEC).values).toEqual({ image: "a:1", namespace: "ns" });
    expect(parseFlags(["--image=a:2", "-nns2"], SPEC).values).toEqual({ image: "a:2", namespace: "ns2" });
  });

  test("reads booleans as --flag, --flag=true|false and --no-flag", () => {
    expect(parseFlags(["--dry-run", "--nats=false"], SPEC).values).toEqual({ "dry-run": true, nats: false });
    expect(parseFlags(["--no-nats"], SPEC).values).toEqual({ nats: false });
    expect(parseFlags(["--nats=true"], SPEC).values).toEqual({ nats: true });
  });

  test("a repeated flag: the last one wins", () => {
    expect(parseFlags(["--image", "a", "--image", "b"], SPEC).values).toEqual({ image: "b" });
  });

  test("a negative number after a value flag is its value", () => {
    expect(parseFlags(["--image", "-1"], SPEC).values).toEqual({ image: "-1" });
    expect(parseFlags(["--image=-1.5"], SPEC).values).toEqual({ image: "-1.5" });
  });

  test("an unknown flag or an unexpected positional argument is named as typed", () => {
    expect(messageOf(["--bogus"])).toBe('unknown argument "--bogus"');
    expect(messageOf(["--bogus=1"])).toBe('unknown argument "--bogus=1"');
    expect(messageOf(["-x"])).toBe('unknown argument "-x"');
    expect(messageOf(["shop"])).toBe('unknown argument "shop"');
    expect(messageOf(["--no-image"])).toBe('unknown argument "--no-image"'); // only booleans negate
  });

  test("a value flag without a value, with an empty one, or followed by a flag needs a value", () => {
    expect(messageOf(["--image"])).toBe("--image needs a value");
    expect(messageOf(["--image="])).toBe("--image needs a value");
    expect(messageOf(["--image", "--nats"])).toBe("--image needs a value");
    expect(messageOf(["-n", "-x"])).toBe("-n needs a value");
    expect(messageOf(["--dir"])).toBe("--dir needs a directory");
  });

  test("a boolean given another value than true or false is refused, quoting it", () => {
    expect(messageOf(["--nats=maybe"])).toBe('--nats takes true or false, got "maybe"');
  });

  test("positional arguments are returned when the command takes them, also after --", () => {
    expect(parseFlags(["a", "--image", "x", "--", "--b"], SPEC, { positionals: true })).toEqual({ values: { image: "x" }, positionals: ["a", "--b"] });
  });
});
