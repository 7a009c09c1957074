import { describe, expect, test } from "bun:test";
import { shownPath } from "../../../src/telemetry/shown-path.ts";

describe("shownPath", () => {
  test("a path inside the working directory is shown relative to it, as a user types it", () => {
    expect(shownPath("/home/me/proj/examples/hello-api/router.yaml", "/home/me/proj")).toBe("examples/hello-api/router.yaml");
  });
  test("the working directory itself is '.'", () => {
    expect(shownPath("/home/me/proj", "/home/me/proj")).toBe(".");
  });
  test("a path outside it stays absolute (no ../../ chains)", () => {
    expect(shownPath("/tmp/flows/a.yaml", "/home/me/proj")).toBe("/tmp/flows/a.yaml");
  });
});
