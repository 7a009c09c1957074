import { describe, expect, test } from "bun:test";
import { DEFAULT_LOCAL_PORT, parseRunLocalArgs } from "../../../src/cli/commands/run-local.ts";

describe("tinyhost run --local arguments", () => {
  test("the port comes from --port, else PORT, else 8080", () => {
    expect(parseRunLocalArgs(["--local", "d"], {})).toEqual({ dir: "d", port: DEFAULT_LOCAL_PORT, watch: true });
    expect(parseRunLocalArgs(["--local", "d"], { PORT: "9001" })).toMatchObject({ port: 9001 });
    expect(parseRunLocalArgs(["--local", "d", "--port", "9002"], { PORT: "9001" })).toMatchObject({ port: 9002 });
  });

  test("every flag is read, in --flag value and --flag=value forms", () => {
    expect(parseRunLocalArgs(["--local=d", "--name", "m", "--namespace=ns", "--components", "c", "--state", "s.json", "--no-watch"], {})).toEqual({
      dir: "d",
      name: "m",
      namespace: "ns",
      components: "c",
      state: "s.json",
      port: DEFAULT_LOCAL_PORT,
      watch: false,
    });
    expect(parseRunLocalArgs(["--local", "d", "--no-state"], {})).toMatchObject({ state: null });
  });

  test("--health-probe-bind-address turns the local health listener on; it is off by default", () => {
    expect(parseRunLocalArgs(["--local", "d"], {})).not.toHaveProperty("healthProbeBindAddress");
    expect(parseRunLocalArgs(["--local", "d", "--health-probe-bind-address", "127.0.0.1:0"], {})).toMatchObject({ healthProbeBindAddress: "127.0.0.1:0" });
    expect(parseRunLocalArgs(["--local", "d", "--health-probe-bind-address=:8081"], {})).toMatchObject({ healthProbeBindAddress: ":8081" });
    expect(parseRunLocalArgs(["--local", "d", "--health-probe-bind-address"], {})).toBe("--health-probe-bind-address needs a value");
  });

  test("bad input is a usage error naming the flag and value", () => {
    expect(parseRunLocalArgs(["--local"], {})).toBe("--local needs a directory");
    expect(parseRunLocalArgs(["--local", "d", "--port", "http"], {})).toBe('port must be an integer 1–65535, got "http" (from --port)');
    expect(parseRunLocalArgs(["--local", "d"], { PORT: "0" })).toBe('port must be an integer 1–65535, got "0" (from PORT)');
    expect(parseRunLocalArgs(["--local", "d", "--verbose"], {})).toBe('unknown argument "--verbose"');
  });

  test("a negative --port is taken as the value and refused by the range check; a flag after --port is not a value", () => {
    expect(parseRunLocalArgs(["--local", "d", "--port", "-1"], {})).toBe('port must be an integer 1–65535, got "-1" (from --port)');
    expect(parseRunLocalArgs(["--local", "d", "--port=-8080"], {})).toBe('port must be an integer 1–65535, got "-8080" (from --port)');
    expect(parseRunLocalArgs(["--local", "d", "--port", "--no-watch"], {})).toBe("--port needs a value");
    expect(parseRunLocalArgs(["--local", "--no-watch"], {})).toBe("--local needs a directory");
    expect(parseRunLocalArgs(["--local", "d", "--name", "-n"], {})).toBe("--name needs a value");
  });
});

describe("run --local console flags", () => {
  test("--console takes a loopback address, --no-console turns it off; a bad address is a usage error naming it", () => {
    expect(parseRunLocalArgs(["--local", "d", "--console", "127.0.0.1:0"], {})).toMatchObject({ console: "127.0.0.1:0" });
    expect(parseRunLocalArgs(["--local", "d", "--no-console"], {})).toMatchObject({ console: false });
    expect(parseRunLocalArgs(["--local", "d"], {})).not.toHaveProperty("console");
    expect(parseRunLocalArgs(["--local", "d", "--console", "0.0.0.0:1"], {})).toStartWith(`--console = "0.0.0.0:1": the console has no login`);
  });
});
