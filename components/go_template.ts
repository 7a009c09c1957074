/**
 * `go_template` — "Go Template Engine" (Go encoding-module `components/gotemplate`): renders the
 * template `request.template` of the settings' `templates`, each parsed with every one of the
 * `partials`, with `request.renderData` as its data, and emits `{context, content}` on `response`.
 *
 * The engine is Go's text/template as src/golang/template implements it (its header lists what is
 * supported; 275 of 276 cases — Go's own exec tests among them — equal Go's output in
 * test/conformance/encoding). Output is not HTML-escaped. Functions beyond the builtins: `now`
 * (time.Time, UTC) and `builtWith` (the Tiny Systems link), as in Go. Settings that do not parse
 * fail the settings (the node shows Go's parse error) and the templates parsed before stay in use,
 * as in Go; until a first parse succeeds a render fails with `template set not loaded`. An
 * unknown template name (`template not found`) or an execution error (Go's text:
 * `template: home.html:1:11: executing "home.html" at <.user.name>: nil pointer evaluating
 * interface {}.name`) fails the hop or, with `enableErrorPort`, goes to `error`.
 *
 * The templates' text reaches the component as written (`templateText`): Go's runner evaluates
 * every settings string as `{{expressions}}` first, so there a template whose whole text is one
 * action (`{{.name}}`) arrives as null and each one logs an expression error
 * (docs/compatibility.md "encoding-module").
 *
 * Deliberate differences (docs/compatibility.md "encoding-module"): `{{template}}` calls nest at
 * most 1000 deep (Go 100000); one render stops with an error past 32 MiB of output or 10 s (Go has
 * no limit; here a template shares the module's event loop); `{{now}}` prints without Go's
 * monotonic-clock suffix `m=+…`; the request's `template` configuration is published as the name.
 */
import { defineComponent, fail, GoTemplateSet, GoTime, mark, source, target, TemplateExecError, Type, type GoFunc, type Static } from "tinyhost";

const TemplateFile = Type.Object(
  {
    name: Type.String({ title: "File name" }),
    content: Type.String({ title: "Template", format: "textarea" }),
  },
  { $id: "Template" },
);

const Settings = Type.Object(
  {
    enableErrorPort: mark(Type.Boolean({ title: "Enable Error Port", description: "If error happen, error port will emit an error message" }), {
      tab: "Settings",
    }),
    templates: mark(Type.Union([Type.Array(TemplateFile), Type.Null()], { title: "Templates", minItems: 1, uniqueItems: true }), { tab: "Templates" }),
    partials: mark(
      Type.Union([Type.Array(TemplateFile), Type.Null()], {
        title: "Partials",
        description: "All partials being loaded with each template",
        uniqueItems: true,
      }),
      { tab: "Partials" },
    ),
  },
  { $id: "Settings" },
);
type Settings = { enableErrorPort: boolean; templates: Static<typeof TemplateFile>[]; partials: Static<typeof TemplateFile>[] };

/** The request's template select: the configured templates' names, default the first (Go `TemplateName`). */
function templateField(names: readonly string[]) {
  return Type.Unsafe<string>({
    type: "string",
    title: "Template",
    description: "Select a template name. Add new templates via settings.",
    default: names[0] ?? "",
    enum: [...names],
  });
}

function request(names: readonly string[]) {
  return Type.Object(
    {
      context: Type.Optional(
        mark(Type.Unknown({ $id: "Context" }), {
          configurable: true,
          title: "Context",
          description: "Arbitrary message to be send alongside with rendered content",
        }),
      ),
      renderData: Type.Optional(
        mark(Type.Unknown({ $id: "RenderData" }), { configurable: true, title: "Render data", description: "Data being used to render the template" }),
      ),
      template: templateField(names),
    },
    { $id: "Request" },
  );
}

const Response = Type.Object({ context: Type.Optional(Type.Unknown({ $id: "Context" })), content: Type.Optional(Type.String()) }, { $id: "Response" });
const ErrorOut = Type.Object({ context: Type.Optional(Type.Unknown({ $id: "Context" })), error: Type.Optional(Type.String()) }, { $id: "Error" });

/** Go `defaultEngineSettings`: three pages over a layout with nav and footer partials. */
export const DEFAULT_SETTINGS: Settings = {
  enableErrorPort: false,
  templates: [
    { name: "home.html", content: '{{template "layout.html" .}}\n{{define "title"}}Welcome.{{end}}\n{{define "content"}}\nWelcome\n{{end}}' },
    { name: "page1.html", content: '{{template "layout.html" .}}\n{{define "title"}} Page one.{{end}}\n{{define "content"}}\nI\'m page 1\n{{end}}' },
    { name: "page2.html", content: '{{template "layout.html" .}}\n{{define "title"}} Page 2 title {{end}}\n{{define "content"}}\nI\'m page 2\n{{end}}' },
  ],
  partials: [
    {
      name: "layout.html",
      content:
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<title>{{block "title" .}}{{end}}</title>\n</head>\n<body>\n{{block "nav" . }}{{end}}\n<div style="padding:20px">\n{{block "content" .}}{{end}}\n</div>\n{{block "footer" .}}{{end}}\n</body>\n</html>',
    },
    {
      name: "footer.html",
      content: '{{define "footer"}}\n<hr/>\n<div style="text-align:center">\n <p>&copy; {{now.UTC.Year}}</p>\n <p>{{builtWith}}</p>\n</div>\n{{end}}',
    },
    {
      name: "nav.html",
      content: '{{define "nav"}}\n<div>\n <a href="/">Home page</a>\n <a href="/page1">Page1</a>\n <a href="/page2">Page2</a>\n</div>\n{{end}}',
    },
  ],
};

const BUILT_WITH = '<a href="https://tinysystems.io?from=builtwith" target="_blank">Built with Tiny Systems</a>';

/** The component's functions (Go `funcMap`): `now` reads the wall clock at each call. */
const FUNCS: ReadonlyMap<string, GoFunc> = new Map<string, GoFunc>([
  ["now", { params: [], call: () => new GoTime(Date.now()) }],
  ["builtWith", { params: [], call: () => BUILT_WITH }],
]);

/**
 * Parses every template with every partial (Go OnSettings), one set per template.
 * @throws TemplateParseError with Go's text for the first text that does not parse.
 */
export function compileTemplates(settings: Settings): Map<string, GoTemplateSet> {
  const sets = new Map<string, GoTemplateSet>();
  for (const t of settings.templates) {
    const set = new GoTemplateSet(FUNCS);
    set.parse(t.name, t.content);
    for (const p of settings.partials) set.parse(p.name, p.content);
    sets.set(t.name, set);
  }
  return sets;
}

interface State {
  settings: Settings;
  sets: Map<string, GoTemplateSet> | undefined;
}

export default defineComponent({
  info: {
    name: "go_template",
    description: "Go Template Engine",
    info: "Render templates using text/template standard package. Supports layouts and partials. Output is not HTML-escaped, suitable for JSON, plain text, and other formats.",
    tags: ["html", "template", "engine"],
  },
  // The templates are Go template text: their {{…}} are go_template's, not edge expressions.
  templateText: { _settings: ["templates[].content", "partials[].content"] },
  state: (): State => ({ settings: DEFAULT_SETTINGS, sets: undefined }),
  ports: (self) => {
    const names = self.settings.templates.map((t) => t.name);
    return [
      target("request", request(names), { label: "Request", position: "left", default: { template: names[0] ?? "" } }),
      source("response", Response, { label: "Response", position: "right", default: { context: null, content: "" } }),
      target("_settings", Settings, { label: "Settings", default: self.settings }),
      ...(self.settings.enableErrorPort ? [source("error", ErrorOut, { label: "Error", position: "bottom", default: { context: null, error: "" } })] : []),
    ];
  },
  onSettings(ctx, raw) {
    const file = (t: { name?: string | null; content?: string | null } | null) => ({ name: t?.name ?? "", content: t?.content ?? "" });
    const settings: Settings = { enableErrorPort: raw.enableErrorPort, templates: (raw.templates ?? []).map(file), partials: (raw.partials ?? []).map(file) };
    ctx.self.settings = settings; // Go stores the settings before compiling them
    ctx.self.sets = compileTemplates(settings); // throws: the node reports Go's parse error, the old sets stay
  },
  handle(ctx, output, _port, data) {
    const context = data.context ?? null;
    const sets = ctx.self.sets;
    if (!sets) return fail(new Error("template set not loaded"));
    const failWith = (message: string) => (ctx.self.settings.enableErrorPort ? output("error", { context, error: message }) : fail(new Error(message)));
    const set = sets.get(data.template);
    if (!set) return failWith("template not found");
    let content: string;
    try {
      content = set.execute(data.template, data.renderData ?? null);
    } catch (err) {
      if (!(err instanceof TemplateExecError)) throw err;
      return failWith(err.message);
    }
    return output("response", { context, content });
  },
});
