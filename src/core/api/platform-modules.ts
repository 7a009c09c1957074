/**
 * The platform's Go modules whose every component tinyhost bundles, with the components of each:
 * the one map from a module name onto a bundled component set, read by local mode (which modules of
 * a directory run, src/local/modules.ts) and by cluster mode (`run --also`: the component list a
 * served platform module's TinyModule publishes, src/operator/served.ts).
 */
import { nameMatches } from "./naming.ts";

/** One of the platform's Go modules whose every component tinyhost bundles. */
export interface PlatformModule {
  /** The module's name without its publisher, as `nameMatches` compares it (`tinysystems-` is optional). */
  readonly name: string;
  /** The Go module's components (tiny-systems/modules `<name minus -v0>/components`). */
  readonly components: readonly string[];
}

/** The platform's modules tinyhost stands in for, with the components of each. */
export const PLATFORM_MODULES: readonly PlatformModule[] = [
  {
    name: "common-module-v0",
    components: [
      "array_filter",
      "array_get",
      "array_split",
      "async",
      "budget_guard",
      "chat",
      "collect",
      "cron",
      "debug",
      "delay",
      "display",
      "flow_telemetry",
      "form",
      "group_by",
      "inject",
      "kv",
      "retry",
      "router",
      "run_start",
      "run_status",
      "signal",
      "ticker",
      "transform",
    ],
  },
  { name: "http-module-v0", components: ["http_auth_parse", "http_request", "http_server", "logql_query", "promql_query"] },
  {
    name: "encoding-module-v0",
    components: ["csv_decode", "csv_encode", "go_template", "json_decode", "json_encode", "jwt_decode", "jwt_encode", "text_chunk", "xml_encode"],
  },
];

/** The platform module a node-name segment (or module name) names, e.g. `tinysystems-common-module-v0` → common-module-v0. */
export function platformModule(segment: string): PlatformModule | undefined {
  return PLATFORM_MODULES.find((m) => nameMatches(segment, m.name));
}

/**
 * Why a node of platform module `platform` cannot run `component`: it is not one of that Go
 * module's components (the platform's editor offers it under another module, or none).
 * @param tinyhostComponent - true when `component` is registered in tinyhost all the same (then it
 *   belongs in the user's own module).
 */
export function notInPlatformModule(platform: PlatformModule, component: string, tinyhostComponent: boolean): string {
  const home = PLATFORM_MODULES.find((m) => m.components.includes(component));
  return (
    `component ${JSON.stringify(component)} is not part of ${platform.name} (its components: ${platform.components.join(", ")})` +
    (home
      ? `; it is in ${home.name}: name the node <prefix>.tinysystems-${home.name}.<component>-<suffix>`
      : tinyhostComponent
        ? "; it is a tinyhost component: put the node in your own module"
        : "")
  );
}
