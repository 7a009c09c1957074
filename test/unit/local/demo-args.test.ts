import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { demoListenFailure, parseDemoArgs, writeEmbeddedDemo } from "../../../src/cli/commands/demo.ts";

describe("tinyhost demo arguments", () => {
  test("--port is read in --port n and --port=n forms; without it the port comes from PORT later", () => {
    expect(parseDemoArgs([])).toEqual({ help: false });
    expect(parseDemoArgs(["--port", "9001"])).toEqual({ help: false, port: "9001" });
    expect(parseDemoArgs(["--port=9002"])).toEqual({ help: false, port: "9002" });
  });

  test("-h and --help ask for the usage", () => {
    expect(parseDemoArgs(["-h"])).toEqual({ help: true });
    expect(parseDemoArgs(["--port", "1", "--help"])).toEqual({ help: true });
  });

  test("an unknown flag or a --port without value is a usage error naming it", () => {
    expect(parseDemoArgs(["--bogus"])).toBe('unknown argument "--bogus"');
    expect(parseDemoArgs(["--port"])).toBe("--port needs a value");
    expect(parseDemoArgs(["--port="])).toBe("--port needs a value");
    expect(parseDemoArgs(["--port", "--bogus"])).toBe("--port needs a value");
  });

  test("a negative number after --port is its value, left for the range check", () => {
    expect(parseDemoArgs(["--port", "-1"])).toEqual({ help: false, port: "-1" });
    expect(parseDemoArgs(["--port=-1"])).toEqual({ help: false, port: "-1" });
    expect(parseDemoArgs(["--port", "-h"])).toBe("--port needs a value");
  });

  test("a port in use gets the one-line advice; another bind failure keeps its reason", () => {
    expect(demoListenFailure(8080, true, "ignored")).toBe("port 8080 is in use: set PORT or --port");
    expect(demoListenFailure(80, false, "http_server: cannot listen on :80: EACCES")).toBe(
      "cannot listen on port 80: http_server: cannot listen on :80: EACCES",
    );
  });
});

describe("tinyhost demo console flags and built-in flow", () => {
  test("--console <addr> and --no-console are read", () => {
    expect(parseDemoArgs(["--console", "127.0.0.1:0"])).toEqual({ help: false, console: "127.0.0.1:0" });
    expect(parseDemoArgs(["--console=9000", "--port", "1"])).toEqual({ help: false, port: "1", console: "9000" });
    expect(parseDemoArgs(["--no-console"])).toEqual({ help: false, console: false });
    expect(parseDemoArgs(["--console"])).toBe("--console needs an address");
  });

  test("the built-in hello-api flow is the committed examples/hello-api, byte for byte, and is removed after", () => {
    const { dir, remove } = writeEmbeddedDemo();
    const root = join(import.meta.dir, "../../../examples/hello-api");
    const yaml = (d: string) =>
      readdirSync(d)
        .filter((f) => f.endsWith(".yaml"))
        .sort();
    expect(yaml(dir)).toEqual(yaml(root));
    for (const f of yaml(root)) expect(readFileSync(join(dir, f), "utf8")).toBe(readFileSync(join(root, f), "utf8"));
    remove();
    expect(existsSync(dir)).toBe(false);
  });
});
