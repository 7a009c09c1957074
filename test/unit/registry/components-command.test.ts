import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { describeComponent } from "../../../src/runtime/registry/index.ts";
import { discoverComponents } from "../../../src/loader/discover.ts";
import { renderComponents } from "../../../src/cli/commands/components.ts";

const root = join(import.meta.dir, "../../..");
const valid = "test/fixtures/components-valid";

/** Runs the real CLI entry point in a child process (no network, no services). */
function cli(...args: string[]) {
  const r = Bun.spawnSync([process.execPath, "src/cli/main.ts", "components", ...args], {
    cwd: root,
    env: { ...process.env, TINYHOST_LOG_LEVEL: "silent" },
  });
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

describe("tinyhost components", () => {
  test("--json lists every component with its ports, position numbers and platform schemas", () => {
    const r = cli("--json", "--dir", valid);
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as Array<{
      name: string;
      tags: string[];
      ports: Array<{ name: string; label: string; source: boolean; position: number; schema: { $ref?: string; $defs?: Record<string, { path?: string }> } }>;
    }>;
    expect(list.map((c) => c.name)).toEqual(["echo", "upper"]);
    const echo = list[0]!;
    expect(echo.tags).toEqual(["SDK", "test"]);
    expect(echo.ports.map((p) => [p.name, p.label, p.source, p.position])).toEqual([
      ["in", "In", false, 3],
      ["out", "Out", true, 1],
      ["_settings", "Settings", false, 0],
    ]);
    const inSchema = echo.ports[0]!.schema;
    expect(inSchema.$ref).toBe("#/$defs/In");
    expect(inSchema.$defs?.Context?.path).toBe("$.context");
    expect(echo.ports[2]!.schema.$ref).toBe("#/$defs/Settings");
  });

  test("system ports _reconcile, _client and _identity are not listed", () => {
    const list = JSON.parse(cli("--json", "--dir", valid).stdout) as Array<{ ports: Array<{ name: string }> }>;
    const names = list.flatMap((c) => c.ports.map((p) => p.name));
    expect(names).not.toContain("_reconcile");
    expect(names).toContain("_settings");
  });

  test("human output shows each component, its file and a port table", () => {
    const r = cli("--dir", valid);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("echo — Echo  [SDK, test]");
    expect(r.stdout).toContain(`file: ${valid}/nested/deep/upper.ts`);
    expect(r.stdout).toMatch(/^ {2}out +Out +output +right$/m);
    expect(r.stdout).toContain("2 components");
  });

  test("a discovery error exits 1 and prints the message with its code", () => {
    const r = cli("--dir", "test/fixtures/components-duplicate");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("[DUPLICATE_COMPONENT]");
    expect(r.stderr).toContain("components-duplicate/a.ts");
  });

  test("an unknown flag is a usage error (exit 2)", () => {
    const r = cli("--bogus");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown argument "--bogus"');
  });

  test("--dir followed by another flag is missing its directory (exit 2), not a directory named --json", () => {
    const r = cli("--dir", "--json");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--dir needs a directory");
  });
});

test("renderComponents aligns the port table columns", async () => {
  const registry = await discoverComponents(join(root, valid));
  const text = renderComponents(
    registry.list().map(describeComponent),
    new Map([
      ["echo", "e.ts"],
      ["upper", "u.ts"],
    ]),
  );
  const [header, ...ports] = text.split("\n").slice(2, 6) as [string, ...string[]];
  expect(header.trim()).toBe("PORT       LABEL     DIRECTION  POSITION");
  const col = header.indexOf("LABEL");
  expect(ports.map((row) => row.slice(col).split(/\s+/)[0])).toEqual(["In", "Out", "Settings"]);
});
