import { expect, test } from "bun:test";
import { generateToken } from "../../../src/provision/index.ts";

test("generated broker tokens are 40 alphanumerics and differ between calls", () => {
  const tokens = new Set(Array.from({ length: 50 }, () => generateToken()));
  for (const t of tokens) expect(t).toMatch(/^[A-Za-z0-9]{40}$/);
  expect(tokens.size).toBe(50);
});
