/** The shared rule for "is the next argument this flag's value?" (src/cli/flag-value.ts). */
import { expect, test } from "bun:test";
import { looksLikeFlag } from "../../../src/cli/flag-value.ts";

test("flags look like flags; negative numbers, plain words and a lone '-' are values", () => {
  for (const flag of ["-h", "-n", "--port", "--port=1", "--no-watch", "-x1"]) expect(looksLikeFlag(flag)).toBe(true);
  for (const value of ["-1", "-0", "-65536", "-1.5", "-.5", "-1e3", "8080", "dir", "-", ""]) expect(looksLikeFlag(value)).toBe(false);
});

test("`tinyhost demo --port -1` is refused by the range check, naming --port and the value (exit 2)", () => {
  const root = `${import.meta.dir}/../../..`;
  const r = Bun.spawnSync([process.execPath, "src/cli/main.ts", "demo", "--port", "-1"], { cwd: root, stdout: "pipe", stderr: "pipe" });
  expect(r.exitCode).toBe(2);
  expect(r.stderr.toString()).toStartWith('tinyhost demo: port must be an integer 1–65535, got "-1" (from --port)');
});
