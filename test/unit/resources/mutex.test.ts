import { describe, expect, test } from "bun:test";
import { Mutex } from "../../../src/k8s/resources/index.ts";

describe("Mutex", () => {
  test("runs holders one at a time in call order, also after a failure", async () => {
    const m = new Mutex();
    const log: string[] = [];
    const job = (name: string, fail = false) =>
      m.run(async () => {
        log.push(`start ${name}`);
        await Bun.sleep(1);
        log.push(`end ${name}`);
        if (fail) throw new Error(name);
      });
    await Promise.allSettled([job("a"), job("b", true), job("c")]);
    expect(log).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
  });
});
