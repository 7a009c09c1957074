/**
 * `router` — "Router": sends `{context}` to the first route whose condition is true
 * (components.md §1.1, Go common-module `components/router`).
 *
 * Settings `routes` make one source port `out_<lowercase(route)>` each (label upper-cased);
 * `enableDefaultPort` adds `default`. On `input`, conditions are walked in order; at the first true
 * one the route is looked up case-insensitively: known → emit there and return the downstream
 * result; unknown → stop scanning. No match → `default` when enabled, else fail
 * `no matching route: …`. Fully blocking, so it can sit between http_server `request` and `response`.
 */
import { contextField, defineComponent, fail, source, target, Type, type Static } from "tinyhost";

// Go `router` port types (common-module); `$id`s are the Go type names.
/** Settings (Go `Settings`); a settings value without `routes` decodes to null (no route ports). */
const Settings = Type.Object(
  {
    routes: Type.Union([Type.Array(Type.String()), Type.Null()], { title: "Routes", minItems: 1, uniqueItems: true }),
    enableDefaultPort: Type.Boolean({ title: "Enable default port" }),
  },
  { $id: "Settings" },
);
type Settings = Static<typeof Settings>;

const DEFAULT_ROUTES = ["A", "B"];

/**
 * `input` (Go `InMessage`): `route` is Go's `RouteName`, a string published as a shared select over
 * the routes, defaulting to the first. Missing or null fields decode to zero values (a condition
 * without a route matches none; without `condition` it is false).
 */
function input(routes: readonly string[]) {
  const route = Type.String({ $id: "RouteName", title: "Route", default: routes[0] ?? "A", shared: true, enum: [...routes] });
  const condition = Type.Object({ route, condition: Type.Boolean({ title: "Condition" }) }, { $id: "Condition" });
  return Type.Object(
    {
      context: contextField("Arbitrary message to be routed"),
      conditions: Type.Array(condition, { title: "Conditions", minItems: 1, uniqueItems: true }),
    },
    { $id: "InMessage" },
  );
}
type Condition = { route: string; condition: boolean };

/** What every route port and `default` emit (Go `OutMessage`): the routed message under `context`. */
const Out = Type.Object({ context: Type.Optional(contextField("Passthrough — the routed message, unchanged")) }, { $id: "OutMessage" });

/** `out_<lowercase(route)>` (Go `getPortNameFromRoute`). */
export function routePort(route: string): `out_${string}` {
  return `out_${route.toLowerCase()}`;
}

/**
 * Route name → its port, looked up per message: each route as written and lower-cased (Go
 * compares lower-cased names), so the common case costs one map read and no string work.
 */
function routePorts(routes: readonly string[]): Map<string, string> {
  const ports = new Map<string, string>();
  for (const r of routes) {
    ports.set(r.toLowerCase(), routePort(r));
    if (!ports.has(r)) ports.set(r, routePort(r));
  }
  return ports;
}

/** Go's `%v` of `[]Condition` (`[{{GET []} true}]`) for the "no matching route" error text. */
function formatConditions(conditions: readonly Condition[]): string {
  return `[${conditions.map((c) => `{{${c.route} []} ${c.condition}}`).join(" ")}]`;
}

export default defineComponent({
  info: {
    name: "router",
    description: "Router",
    info: 'Conditional message router. Configure routes via settings (e.g., routes=["POST", "OTHER"]). Output ports are named out_<lowercase(route)> (e.g., out_post, out_other). Input: context (data to forward) + conditions array (each with route name and boolean). Routes context to FIRST condition where condition=true. If NO condition is true: with enableDefaultPort=true, routes to \'default\' port (leave unwired to silently drop); with enableDefaultPort=false, returns an error to the caller. Prefer enableDefaultPort=true when unmatched messages should be ignored. Each out_<route> emits the routed message under `context` — a downstream edge reads `$.context.<field>`.',
    tags: ["SDK"],
  },
  state: () => ({ settings: { routes: [...DEFAULT_ROUTES], enableDefaultPort: false } as Settings, ports: routePorts(DEFAULT_ROUTES) }),
  ports: (self) => {
    const routes = self.settings.routes ?? [];
    const first = routes[0] ?? "A";
    const inputDefault = { context: null, conditions: [{ route: first, condition: true }] };
    const seen = new Set<string>();
    const routePorts = [];
    for (const r of routes) {
      const name = routePort(r);
      if (seen.has(name)) continue; // "a" and "A" share a port; Go would list it twice
      seen.add(name);
      routePorts.push(source(name, Out, { label: r.toUpperCase(), position: "right", default: { context: null } }));
    }
    return [
      target("_settings", Settings, { label: "Settings", default: self.settings }),
      target("input", input(routes), { label: "IN", position: "left", default: inputDefault }),
      ...routePorts,
      ...(self.settings.enableDefaultPort ? [source("default", Out, { label: "Default", position: "bottom", default: { context: null } })] : []),
    ];
  },
  onSettings(ctx, settings) {
    ctx.self.settings = { routes: settings.routes === null ? null : [...settings.routes], enableDefaultPort: settings.enableDefaultPort };
    ctx.self.ports = routePorts(settings.routes ?? []);
  },
  handle(ctx, output, _port, data) {
    const conditions = (data.conditions as Condition[] | null) ?? []; // decoded: null when missing
    const context = data.context ?? null;
    for (const c of conditions) {
      if (c.condition !== true) continue;
      const port = ctx.self.ports.get(c.route) ?? ctx.self.ports.get(c.route.toLowerCase());
      if (port !== undefined) return output(port, { context });
      break; // Go: the first true condition decides, even when its route is unknown
    }
    if (ctx.self.settings.enableDefaultPort) return output("default", { context });
    return fail(new Error(`no matching route: ${formatConditions(conditions)}`));
  },
});
