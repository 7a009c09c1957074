import { describe, expect, test } from "bun:test";
import { withoutStartFailures } from "../../../src/local/manager-log.ts";
import type { Logger } from "../../../src/telemetry/log.ts";

describe("withoutStartFailures", () => {
  test("drops the manager's start-failed record (the command prints the error once) and passes the rest", () => {
    const seen: unknown[][] = [];
    const fake = {
      level: "warn",
      error: (...a: unknown[]) => void seen.push(["error", ...a]),
      warn: (...a: unknown[]) => void seen.push(["warn", ...a]),
    } as unknown as Logger;
    const log = withoutStartFailures(fake);
    log.error({ runnable: "console", err: "console: cannot listen on 127.0.0.1:7890" }, "start failed: console");
    log.error({ x: 1 }, "something else");
    log.warn({ group: "runners" }, "shutdown budget spent");
    expect(seen).toEqual([
      ["error", { x: 1 }, "something else"],
      ["warn", { group: "runners" }, "shutdown budget spent"],
    ]);
    expect(log.level).toBe("warn");
  });
});
