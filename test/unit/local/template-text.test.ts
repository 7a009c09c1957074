import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineComponent, source, target, Type } from "tinyhost";
import { LocalHost } from "../../../src/local/host.ts";
import { compileTemplate, fieldMatcher } from "../../../src/runtime/expression/index.ts";
import { loadStaticRegistry } from "../../../src/loader/static.ts";

const hosts: LocalHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function nodeYaml(name: string, component: string, settings: unknown): string {
  return `apiVersion: operator.tinysystems.io/v1alpha1
kind: TinyNode
metadata:
  name: ${name}
  labels: {tinysystems.io/flow-name: f, tinysystems.io/project-name: p}
spec:
  module: tinyhost
  component: ${component}
  ports:
  - port: _settings
    configuration: ${Buffer.from(JSON.stringify(settings)).toString("base64")}
`;
}

async function start(name: string, component: string, settings: unknown, extra: ReturnType<typeof defineComponent>[] = []) {
  const dir = mkdtempSync(join(tmpdir(), "tinyhost-tt-"));
  dirs.push(dir);
  writeFileSync(join(dir, "n.yaml"), nodeYaml(name, component, settings));
  const lines: string[] = [];
  const host = await LocalHost.start({
    dir,
    components: [...loadStaticRegistry().list(), ...extra],
    statePath: null,
    watch: false,
    debounceMs: 10,
    resyncMs: 0,
    report: (l) => lines.push(l),
  });
  hosts.push(host);
  return { host, lines };
}

test("fields a component declares as template text are kept as written; a field matcher takes [] for any index", () => {
  const t = compileTemplate(
    { templates: [{ content: "{{.name}}" }, { content: "Hi {{ .name }}" }], other: "{{$.a}}" },
    { tolerant: true, verbatim: fieldMatcher(["templates[].content"]) },
  );
  expect(t.syntaxErrors).toEqual([]);
  expect(t.evaluate({ a: 5 })).toEqual({ templates: [{ content: "{{.name}}" }, { content: "Hi {{ .name }}" }], other: 5 });
  expect(fieldMatcher(["a[].b"])("a[12].b")).toBe(true);
  expect(fieldMatcher(["a[].b"])("a.b")).toBe(false);
});

test("go_template's Go templates in local mode: no expression error at load, on the status or per hop; they render", async () => {
  const name = "abcd1234.tinyhost.go-template-aaaaa";
  const { host, lines } = await start(name, "go_template", {
    templates: [
      { name: "a.txt", content: "{{.name}}" },
      { name: "b.txt", content: "Hello {{.name}}!" },
    ],
  });
  expect(host.status(name)).toMatchObject({ status: "OK" });
  expect(host.status(name)?.error).toBeFalsy();
  const a = await host.send(name, "request", { template: "a.txt", renderData: { name: "Ada" } });
  const b = await host.send(name, "request", { template: "b.txt", renderData: { name: "Ada" } });
  expect(a.kind).not.toBe("fail");
  expect(b.kind).not.toBe("fail");
  await host.idle();
  expect(lines.filter((l) => l.startsWith("error:") || l.startsWith("warning:"))).toEqual([]);
});

test("an expression error in a field that is not template text is still reported", async () => {
  const mixed = defineComponent({
    info: { name: "mixed", description: "Mixed", info: "a template field and an expression field" },
    templateText: { _settings: ["body"] },
    ports: () => [
      target("_settings", Type.Object({ body: Type.String(), subject: Type.String() }), { default: { body: "", subject: "" } }),
      source("out", Type.Unknown()),
    ],
    handle: () => undefined,
  });
  const name = "abcd1234.tinyhost.mixed-aaaaa";
  const { host, lines } = await start(name, "mixed", { body: "{{.x}}", subject: "{{$.(}}" }, [mixed]);
  expect(lines.some((l) => l.startsWith("error:") && l.includes('expression "{{$.(}}"') && l.includes('in field "subject"'))).toBe(true);
  expect(lines.some((l) => l.includes('"{{.x}}"'))).toBe(false);
  expect(host.status(name)?.error).toBe(true);
});

test("templateText must map ports to lists of paths", () => {
  expect(() =>
    defineComponent({
      info: { name: "bad_tt", description: "x", info: "x" },
      templateText: { _settings: "body" } as never,
      ports: () => [],
      handle: () => undefined,
    }),
  ).toThrow('component bad_tt: templateText._settings must be a list of field paths like "templates[].content", got "body"');
});
