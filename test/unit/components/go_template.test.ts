/**
 * go_template (Go encoding-module components/gotemplate; no Go tests of its own): the default
 * layout/partials site, rendering with JSON data, Go's errors through the component, settings
 * that do not parse, the error port and the limits. text/template itself is compared with Go case
 * by case (Go's exec tests among them) in test/unit/golang/encoding-conformance.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { testComponent } from "tinyhost";
import goTemplate, { compileTemplates, DEFAULT_SETTINGS } from "../../../components/go_template.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";
const unb64 = (s: string) => JSON.parse(Buffer.from(s, "base64").toString("utf8"));

async function render(template: string, renderData: unknown, settings: unknown = DEFAULT_SETTINGS) {
  const h = await testComponent(goTemplate, { settings });
  const result = await h.send("request", { context: { id: 1 }, template, renderData });
  return { h, result, emitted: h.emitted };
}

const site = (templates: { name: string; content: string }[], partials: { name: string; content: string }[] = [], enableErrorPort = false) => ({
  enableErrorPort,
  templates,
  partials,
});

describe("go_template", () => {
  test("the default site renders home.html through the layout, nav and footer partials", async () => {
    const { emitted } = await render("home.html", null);
    const content = (emitted[0]!.data as { content: string }).content;
    expect(content).toContain("<title>Welcome.</title>");
    expect(content).toContain('<a href="/page1">Page1</a>');
    expect(content).toContain(`<p>&copy; ${new Date().getUTCFullYear()}</p>`);
    expect(content).toContain("Built with Tiny Systems");
    expect(content.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(emitted[0]!.data).toMatchObject({ context: { id: 1 } });
  });

  test("renders JSON data with Go's printing (floats as Go prints them, missing keys as <no value>)", async () => {
    const s = site([
      {
        name: "t.txt",
        content:
          "{{.user.name}} has {{len .items}} items: {{range $i, $e := .items}}{{if $i}}, {{end}}{{$e.sku}} x{{$e.qty}}{{end}}. big={{.big}} {{.missing}}",
      },
    ]);
    const { emitted } = await render(
      "t.txt",
      {
        user: { name: "Ada" },
        items: [
          { sku: "a", qty: 2 },
          { sku: "b", qty: 1.5 },
        ],
        big: 1000000,
      },
      s,
    );
    expect((emitted[0]!.data as { content: string }).content).toBe("Ada has 2 items: a x2, b x1.5. big=1e+06 <no value>");
  });

  test("output is not HTML-escaped (text/template), html escapes on request", async () => {
    const s = site([{ name: "t", content: '{{.}}|{{html .}}|{{printf "%q" .}}' }]);
    expect(((await render("t", "<b>&</b>", s)).emitted[0]!.data as { content: string }).content).toBe('<b>&</b>|&lt;b&gt;&amp;&lt;/b&gt;|"<b>&</b>"');
  });

  test("the templates arrive as written (templateText): a template that is one whole action renders, where Go's runner makes it null", async () => {
    // Go evaluates every settings string as an expression first; `{{.x}}` alone fails there and
    // the field becomes null (docs/compatibility.md "encoding-module").
    const { emitted } = await render(
      "t",
      { x: 1 },
      site([
        { name: "t", content: "{{.x}}" },
        { name: "u", content: "x={{.x}}" },
      ]),
    );
    expect(emitted[0]!.data).toEqual({ context: { id: 1 }, content: "1" });
    expect(((await render("u", { x: 1 }, site([{ name: "u", content: "x={{.x}}" }]))).emitted[0]!.data as { content: string }).content).toBe("x=1");
    expect(goTemplate.templateText).toEqual({ _settings: ["templates[].content", "partials[].content"] });
  });

  test("Go's comparison rule holds: an int literal and a JSON number do not compare", async () => {
    const s = site([{ name: "t", content: "n: {{if eq .n 2}}two{{end}}" }]);
    const { result } = await render("t", { n: 2 }, s);
    expect(result.kind === "fail" && result.error.message).toBe(
      'template: t:1:8: executing "t" at <eq .n 2>: error calling eq: incompatible types for comparison: float64 and int',
    );
  });

  test("an execution error fails with Go's text, or goes to the error port", async () => {
    const tmpl = [{ name: "t", content: "b={{.a.b}}" }];
    const failed = await render("t", { a: null }, site(tmpl));
    expect(failed.result.kind === "fail" && failed.result.error.message).toBe(
      'template: t:1:6: executing "t" at <.a.b>: nil pointer evaluating interface {}.b',
    );
    const routed = await render("t", { a: null }, site(tmpl, [], true));
    expect(routed.emitted).toEqual([
      { port: "error", data: { context: { id: 1 }, error: 'template: t:1:6: executing "t" at <.a.b>: nil pointer evaluating interface {}.b' } },
    ]);
  });

  test("an unknown template name is `template not found`", async () => {
    const { result } = await render("nope.html", null);
    expect(result.kind === "fail" && result.error.message).toBe("template not found");
  });

  test("settings that do not parse fail with Go's text and keep the previous templates", async () => {
    expect(() => compileTemplates(site([{ name: "bad", content: "{{if}}" }]))).toThrow("template: bad:1: missing value for if");
    expect(() => compileTemplates(site([{ name: "ok", content: "x" }], [{ name: "p.html", content: "{{.a" }]))).toThrow("template: p.html:1: unclosed action");
    const h = await testComponent(goTemplate, { settings: site([{ name: "ok", content: "fine {{.}}" }]) });
    await h.send("_settings", site([{ name: "bad", content: "{{if}}" }]));
    const still = await h.send("request", { template: "ok", renderData: 1 });
    expect(still.kind).not.toBe("fail");
    expect(h.emitted.at(-1)!.data).toEqual({ context: null, content: "fine 1" });
  });

  test("partials are parsed after each template: an empty block keeps the page's definition, a non-empty one replaces it (Go)", async () => {
    const pages = [
      { name: "a", content: '{{define "body"}}A body{{end}}{{template "layout" .}}' },
      { name: "b", content: 'B{{template "layout" .}}' },
    ];
    const emptyBlock = site(pages, [{ name: "layout", content: '<{{block "body" .}}{{end}}>' }]);
    expect(((await render("a", null, emptyBlock)).emitted[0]!.data as { content: string }).content).toBe("<A body>");
    expect(((await render("b", null, emptyBlock)).emitted[0]!.data as { content: string }).content).toBe("B<>");
    const withDefault = site(pages, [{ name: "layout", content: '<{{block "body" .}}default{{end}}>' }]);
    expect(((await render("a", null, withDefault)).emitted[0]!.data as { content: string }).content).toBe("<default>");
  });

  test("runaway templates are stopped: recursion and unbounded output", async () => {
    const rec = await render("t", null, site([{ name: "t", content: '{{define "r"}}{{template "r" .}}{{end}}{{template "r" .}}' }]));
    expect(rec.result.kind === "fail" && rec.result.error.message).toContain("exceeded maximum template depth (1000)");
    const big = await render("t", null, site([{ name: "t", content: "{{range 100000000}}xxxxxxxxxx{{end}}" }]));
    expect(big.result.kind === "fail" && big.result.error.message).toMatch(/output exceeds|execution exceeded/);
  });

  test("ports: the request's template select lists the templates; Go's default settings are published", async () => {
    const h = await testComponent(goTemplate, {
      settings: site([
        { name: "x.txt", content: "x" },
        { name: "y.txt", content: "y" },
      ]),
    });
    const ports = h.status().ports!;
    expect(ports.map((p) => p.name)).toEqual(["_settings", "request", "response"]);
    expect(unb64(ports.find((p) => p.name === "request")!.configuration)).toEqual({ template: "x.txt" });
    const schema = unb64(ports.find((p) => p.name === "request")!.schema) as {
      $defs: { Request: { properties: { template: { enum: string[]; default: string } } } };
    };
    expect(schema.$defs.Request.properties.template).toMatchObject({ enum: ["x.txt", "y.txt"], default: "x.txt" });
    const plain = await testComponent(goTemplate);
    expect(unb64(plain.status().ports!.find((p) => p.name === "_settings")!.configuration)).toEqual(DEFAULT_SETTINGS);
  });
});
