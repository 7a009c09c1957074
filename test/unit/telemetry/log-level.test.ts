import { afterEach, describe, expect, spyOn, test } from "bun:test";
import { runCli } from "../../../src/cli/cli.ts";
import { LOG_LEVELS, LogLevelError, logLevelFrom } from "../../../src/telemetry/log-level.ts";

const saved = process.env.TINYHOST_LOG_LEVEL;
afterEach(() => {
  if (saved === undefined) delete process.env.TINYHOST_LOG_LEVEL;
  else process.env.TINYHOST_LOG_LEVEL = saved;
});

describe("TINYHOST_LOG_LEVEL", () => {
  test("unset or empty is info; every listed level is taken as is", () => {
    expect(logLevelFrom({})).toBe("info");
    expect(logLevelFrom({ TINYHOST_LOG_LEVEL: "" })).toBe("info");
    for (const level of LOG_LEVELS) expect(logLevelFrom({ TINYHOST_LOG_LEVEL: level })).toBe(level);
  });

  test("anything else is an error naming the variable, the value and the choices", () => {
    const err = (() => {
      try {
        logLevelFrom({ TINYHOST_LOG_LEVEL: "INFO" });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(LogLevelError);
    expect((err as Error).message).toBe('TINYHOST_LOG_LEVEL="INFO": expected one of trace, debug, info, warn, error, fatal, silent');
  });

  test("the CLI refuses it with that message and exit code 2, before a command runs", async () => {
    process.env.TINYHOST_LOG_LEVEL = "bogus";
    const errors: string[] = [];
    const spy = spyOn(console, "error").mockImplementation((...a: unknown[]) => void errors.push(a.join(" ")));
    try {
      expect(await runCli(["components"])).toBe(2);
    } finally {
      spy.mockRestore();
    }
    expect(errors).toEqual(['tinyhost: TINYHOST_LOG_LEVEL="bogus": expected one of trace, debug, info, warn, error, fatal, silent']);
  });
});
