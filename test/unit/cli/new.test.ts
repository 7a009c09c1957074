import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runNew, tinyhostCommand } from "../../../src/cli/commands/new.ts";
import { componentFiles, ComponentNameError, titleOf } from "../../../src/cli/scaffold/component.ts";
import { newFlowDescription } from "../../../src/cli/scaffold/flow.ts";
import { readManifestDir } from "../../../src/local/manifests.ts";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), "tinyhost-new-"));
  dirs.push(d);
  return d;
};

describe("new component", () => {
  test("writes the component and its test, the test importing the component by a relative path", () => {
    const files = componentFiles("say_hello");
    expect(files.map((f) => f.path)).toEqual(["components/say_hello.ts", "test/unit/components/say_hello.test.ts"]);
    expect(files[0]!.text).toContain('name: "say_hello", description: "Say hello"');
    expect(files[1]!.text).toContain('import sayHello from "../../../components/say_hello.ts";');
    expect(componentFiles("x", { components: "lib/c", tests: "lib/c" })[1]!.text).toContain('from "./x.ts"');
    expect(titleOf("http_server")).toBe("Http server");
  });

  test("a name that breaks the component name rule is refused with a suggestion", () => {
    expect(() => componentFiles("Say-Hello")).toThrow(ComponentNameError);
    expect(() => componentFiles("Say-Hello")).toThrow('(try "say_hello")');
  });

  test("never overwrites: with one file taken, nothing is written", () => {
    const root = temp();
    mkdirSync(join(root, "components"));
    writeFileSync(join(root, "components/greet.ts"), "// mine\n");
    const r = runNew(["component", "greet"], root);
    expect(r.code).toBe(1);
    expect(r.err[0]).toBe("tinyhost new: components/greet.ts already exists; nothing written");
    expect(readFileSync(join(root, "components/greet.ts"), "utf8")).toBe("// mine\n");
    expect(existsSync(join(root, "test/unit/components/greet.test.ts"))).toBe(false);
  });

  test("usage errors name the problem (kind, missing name, flags of the other kind)", () => {
    expect(runNew([], temp()).err[0]).toBe("tinyhost new: say what to create: component or flow");
    expect(runNew(["widget", "x"], temp()).err[0]).toBe('tinyhost new: unknown kind "widget" (component or flow)');
    expect(runNew(["component"], temp()).code).toBe(2);
    expect(runNew(["component", "x", "--module", "m"], temp()).err[0]).toBe("tinyhost new: --module and --project are for new flow");
  });
});

describe("new: hints", () => {
  test("from source they use ./node_modules/.bin/bun and npm run tinyhost; from the binary its path and --components", () => {
    const src = runNew(["component", "greet"], temp(), false);
    expect(src.out.at(-1)).toBe(
      "test it: ./node_modules/.bin/bun test test/unit/components/greet.test.ts; `npm run tinyhost -- run --local <flow dir>` picks the component up live",
    );
    const elsewhere = temp();
    const outside = runNew(["component", "greet", "--components", join(elsewhere, "comps"), "--tests", join(elsewhere, "tests")], temp(), false);
    expect(outside.out.at(-2)).toBe(
      `test it: ./node_modules/.bin/bun test ${join(elsewhere, "tests/greet.test.ts")}; \`npm run tinyhost -- run --local <flow dir> --components ${join(elsewhere, "comps")}\` picks the component up live`,
    );
    expect(outside.out.at(-1)).toContain(`ln -s `);
    expect(outside.out.at(-1)).toContain(`mkdir -p ${elsewhere}/node_modules && ln -s `);
    expect(outside.out.at(-1)).toEndWith(` ${elsewhere}/node_modules/tinyhost`);
    expect(runNew(["component", "greet", "--components", "lib"], temp(), false).out.at(-1)).toContain("run --local <flow dir> --components lib`");
    const bin = runNew(["component", "greet"], temp(), true);
    expect(bin.out.some((l) => l.startsWith("use it: ") && l.includes(" run --local <flow dir> --components components "))).toBe(true);
    expect(bin.out.some((l) => l.includes("./node_modules/.bin/bun"))).toBe(false);
    expect(runNew(["flow", "f"], temp(), false).out.at(-1)).toBe("run it: npm run tinyhost -- run --local f");
    expect(tinyhostCommand(true, "/w", "/w/dist/tinyhost")).toBe("dist/tinyhost");
    expect(tinyhostCommand(true, "/w", "/w/tinyhost")).toBe("./tinyhost");
    expect(tinyhostCommand(true, "/w", "/usr/local/bin/tinyhost")).toBe("/usr/local/bin/tinyhost");
  });
});

describe("new flow", () => {
  test("writes a flow named after its directory in the examples' shape: project, flow, labelled nodes, base64 mappings", () => {
    const root = temp();
    const r = runNew(["flow", "flows/Greet Demo", "--module", "greeter"], root);
    expect(r.code).toBe(0);
    const dir = join(root, "flows/Greet Demo");
    expect(readdirSync(dir).sort()).toEqual(["00-flow.yaml", "show.yaml", "start.yaml"]);
    const read = readManifestDir(dir, dir);
    const nodes = read.flatMap((f) => f.nodes);
    expect(
      nodes.map((n) => [
        n.node.spec.component,
        n.node.metadata.annotations?.["tinysystems.io/node-label"],
        n.node.metadata.labels?.["tinysystems.io/flow-name"],
      ]),
    ).toEqual([
      ["debug", "Show", "greet-demo"],
      ["signal", "Start", "greet-demo"],
    ]);
    for (const n of nodes) expect(n.node.metadata.name).toMatch(/^[0-9a-f]{8}\.greeter\.(debug|signal)-[0-9a-f]{5}$/);
    expect(readFileSync(join(dir, "show.yaml"), "utf8")).toContain("# from signal-");
    expect(runNew(["flow", "flows/Greet Demo"], root).code).toBe(1); // already holds manifests
  });

  test("the flow's description starts itself (start signal) and ends in a debug node", () => {
    const d = newFlowDescription("/x/my-flow");
    expect(d.flow).toBe("my-flow");
    expect(d.nodes.start!.startSignal).toEqual({ send: true });
    expect(d.edges).toEqual([{ from: "start:out", to: "show:in", configuration: { greeting: "{{$.hello}}", from: "signal" } }]);
  });
});
