import { describe, expect, test } from "bun:test";
import { DEFAULT_CONSOLE_ADDRESS, parseConsoleAddress } from "../../../src/console/address.ts";

describe("parseConsoleAddress", () => {
  test("a port, :port, host:port and [::1]:port on loopback; no fallback when given", () => {
    expect(parseConsoleAddress("9000")).toEqual({ hostname: "127.0.0.1", port: 9000, fallback: false });
    expect(parseConsoleAddress(":0")).toEqual({ hostname: "127.0.0.1", port: 0, fallback: false });
    expect(parseConsoleAddress("localhost:7000")).toEqual({ hostname: "localhost", port: 7000, fallback: false });
    expect(parseConsoleAddress("127.0.0.2:7000").hostname).toBe("127.0.0.2");
    expect(parseConsoleAddress("[::1]:7000").hostname).toBe("::1");
  });

  test("a non-loopback host is refused, naming the flag and the value", () => {
    expect(() => parseConsoleAddress("0.0.0.0:7878")).toThrow(`--console = "0.0.0.0:7878": the console has no login, so it listens on a loopback address only`);
    expect(() => parseConsoleAddress("10.0.0.1:1")).toThrow("loopback");
  });

  test("malformed values are refused", () => {
    expect(() => parseConsoleAddress("abc")).toThrow(`--console = "abc": not "[host:]port"`);
    expect(() => parseConsoleAddress("1:99999")).toThrow("--console");
  });

  test("the default is 127.0.0.1:7878, falling back to a free port", () => {
    expect(DEFAULT_CONSOLE_ADDRESS).toEqual({ hostname: "127.0.0.1", port: 7878, fallback: true });
  });
});
