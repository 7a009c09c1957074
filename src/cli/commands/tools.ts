/**
 * `tinyhost tools`: the Go CLI's developer tools where they mean something for tinyhost
 * (Go cli/tools.go, rbac-values.go, components-info.go):
 *
 * - `tools rbac-values [--with-cr-helpers] [--dir <dir>]` — the chart values overlay (`rbac:`)
 *   this module's components need and declare (src/provision/rbac-values.ts); nothing when none.
 * - `tools keda-values --release <r> [--namespace <ns>] [--autoscale <spec>] [--chart-values [--nats-url <url> [--nats-token-secret <s>]]] …`
 *   — KEDA's ScaledObject (+ TriggerAuthentication) for a module the platform's chart installed, or
 *   with `--chart-values` the chart values overlay (src/provision/keda-values.ts); min=0 is checked
 *   against the components that must keep a replica (../scaling-check.ts). A flag of the other
 *   output, a URL with credentials and `--autoscale off` are refused. Exit 2 on a refusal.
 * - `tools rbac-check [--strict] [--manifests <dir>] [--dir <dir>]` — the calls made for the
 *   components that their declared rules do not cover (src/provision/rbac-check.ts), in Go's words:
 *   exit 0 (also with findings, unless `--strict`: then 1), 1 when it cannot check.
 * - `tools components-info [--json] [--dir <dir>]` — the discovery listing a module repository's
 *   `components.yaml` carries, as Go's: `[{name, description, info, tags}]` in registration order,
 *   empty fields left out, an agent tool tagged `agent_tool` with its tool description as `info`,
 *   a `syncRpc` component tagged `sync_rpc` (../platform-listing.ts); without `--json`, Go's
 *   error-port conformance warnings (../error-ports.ts) on stderr.
 * Flags: the shared parser of ../flags.ts. Exit codes: 0 done, 1 the components cannot be loaded, 2 usage error.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import YAML from "yaml";
import type { CommandRunner } from "../command.ts";
import { FlagError, parseFlags } from "../flags.ts";
import { componentsDefault, isCompiledBinary } from "../components-source.ts";
import { describeComponent, RegistryError, type Registry } from "../../runtime/registry/index.ts";
import { discoverComponents } from "../../loader/discover.ts";
import { chartRbacValues, type ComponentNeeds } from "../../provision/rbac-values.ts";
import { checkRbacCoverage, RBAC_CHECK_OK, rbacCheckReport } from "../../provision/rbac-check.ts";
import type { NodeManifest } from "../../local/manifests.ts";
import type { ComponentDefinition } from "../../core/component.ts";
import { platformListing } from "../platform-listing.ts";
import { componentNeeds } from "../component-set.ts";
import { errorPortWarnings } from "../error-ports.ts";
import { messageOf } from "../../core/errors.ts";
import { ProvisionInputError, resolveOptions, toYamlStream } from "../../provision/index.ts";
import { chartKedaManifests, chartKedaTarget, chartKedaValues, checkChartNatsUrl, parseTokenSecret, type ChartRelease } from "../../provision/keda-values.ts";
import { isAutoscaleOff } from "../../provision/scaling.ts";
import { scaleToZeroCheck } from "../scaling-check.ts";

/** Help text of `tinyhost tools`. */
export function toolsUsage(compiled = isCompiledBinary()): string {
  return `Usage: tinyhost tools <tool> [flags]

Tools:
  rbac-values       print the tinysystems-operator chart values overlay (rbac:) these components
                    need; nothing when the chart's own rules suffice
                      --with-cr-helpers  the components use the CR helpers (flows, projects, pages, scenarios)
  rbac-check        report the calls made for the components (ExposePort, the Secrets their
                    [[secret:name/key]] placeholders name) that their declared requirements do not cover
                      --manifests <dir>  also check the placeholders of the TinyNode manifests there
                      --strict           exit 1 when a call is not covered
  keda-values       KEDA scaling for a module installed with the platform's chart: the ScaledObject
                    (+ TriggerAuthentication) to kubectl apply, or with --chart-values the values
                    overlay (pre-install creates the stream and consumer; replicas)
                      --release <r>           Helm release name (required)
                      --namespace <ns>        release namespace (default tinysystems)
                      --module-name <m>       the chart's controllerManager.manager.moduleName, if set
                      --autoscale <spec>      "on" or min=,max=,lag=,activation=,polling=,cooldown=
                      --manifests <dir>       the module's TinyNodes: min=0 refused for a server or timer node
                      --chart-values          print the chart values overlay instead: replicas, extraEnv
                                              (TINY_NATS_TRANSPORT=jetstream, TINYHOST_AUTOSCALE_MIN and the
                                              chart's OTLP_DSN; Helm replaces the list whole: merge your own)
                    for the ScaledObject only (refused with --chart-values):
                      --keda-endpoint <h:p>   broker monitoring endpoint (default tinysystems-nats-headless.<ns>.svc:8222)
                      --keda-auth-secret <s>  Secret with natsServerMonitoringEndpoint and account
                    for the overlay only (refused without --chart-values):
                      --nats-url <url>        the broker, without credentials: natsURL and the pre-install hook
                      --nats-token-secret <s>[/<key>]  the Secret with the broker token (key default token):
                                              the module reads it by secretKeyRef; the first pod prepares the broker
  components-info   list the components (name — description) and error-port warnings; --json: the
                    repository index shape [{name, description, info, tags}]

Flags of all:
  --dir <dir>       components directory (${componentsDefault({ compiled, bundledFallback: false })})
  -h, --help        this text`;
}

/** The components: the static registry in a compiled binary without --dir, else the files of the directory. */
async function loadComponents(dir: string | undefined): Promise<Registry> {
  if (dir === undefined && Bun.isStandaloneExecutable) {
    const { loadStaticRegistry } = await import("../../loader/static.ts");
    return loadStaticRegistry();
  }
  return discoverComponents(resolve(dir ?? "components"));
}

type Tool = "rbac-values" | "rbac-check" | "components-info" | "keda-values";

function parse(args: string[], tool: Tool) {
  return parseFlags(args, {
    dir: { type: "string", valueName: "a directory" },
    help: { type: "boolean", short: "h" },
    ...(tool === "components-info" ? { json: { type: "boolean" as const } } : {}),
    ...(tool === "rbac-values" ? { "with-cr-helpers": { type: "boolean" as const } } : {}),
    ...(tool === "rbac-check" ? { strict: { type: "boolean" as const }, manifests: { type: "string" as const, valueName: "a directory" } } : {}),
    ...(tool === "keda-values"
      ? {
          release: { type: "string" as const, valueName: "a release name" },
          namespace: { type: "string" as const, valueName: "a namespace" },
          "module-name": { type: "string" as const, valueName: "a module name" },
          autoscale: { type: "string" as const, valueName: "a spec" },
          "nats-url": { type: "string" as const, valueName: "a URL" },
          "nats-token-secret": { type: "string" as const, valueName: "a Secret name" },
          "keda-endpoint": { type: "string" as const, valueName: "host:port" },
          "keda-auth-secret": { type: "string" as const, valueName: "a Secret name" },
          manifests: { type: "string" as const, valueName: "a directory" },
          "chart-values": { type: "boolean" as const },
        }
      : {}),
  }).values as {
    dir?: string;
    json?: boolean;
    help?: boolean;
    "with-cr-helpers"?: boolean;
    strict?: boolean;
    manifests?: string;
    release?: string;
    namespace?: string;
    "module-name"?: string;
    autoscale?: string;
    "nats-url"?: string;
    "nats-token-secret"?: string;
    "keda-endpoint"?: string;
    "keda-auth-secret"?: string;
    "chart-values"?: boolean;
  };
}

/** The `tools` sub-command. */
export const toolsCommand: CommandRunner = {
  name: "tools",
  async run(args) {
    const [tool, ...rest] = args;
    if (tool === undefined || tool === "--help" || tool === "-h" || tool === "help") {
      console.log(toolsUsage());
      return 0;
    }
    if (tool !== "rbac-values" && tool !== "components-info" && tool !== "rbac-check" && tool !== "keda-values") {
      console.error(`tinyhost tools: unknown tool ${JSON.stringify(tool)}\n\n${toolsUsage()}`);
      return 2;
    }
    let flags;
    try {
      flags = parse(rest, tool);
    } catch (e) {
      if (!(e instanceof FlagError)) throw e;
      console.error(`tinyhost tools ${tool}: ${e.message}\n\n${toolsUsage()}`);
      return 2;
    }
    if (flags.help) {
      console.log(toolsUsage());
      return 0;
    }
    let registry: Registry;
    try {
      registry = await loadComponents(flags.dir);
    } catch (e) {
      const code = e instanceof RegistryError ? ` [${e.code}]` : "";
      console.error(`tinyhost tools ${tool}: ${messageOf(e)}${code}`);
      return 1;
    }
    const defs = registry.list();
    const needs = () => componentNeeds(defs);
    if (tool === "rbac-values") {
      const values = chartRbacValues(needs(), { withCrHelpers: flags["with-cr-helpers"] === true });
      if (values) process.stdout.write(YAML.stringify(values, { indentSeq: false }));
      return 0;
    }
    if (tool === "rbac-check") return rbacCheck(defs, needs(), flags.manifests, flags.strict === true);
    if (tool === "keda-values") return kedaValues(flags, needs());
    if (flags.json) {
      // Go cli/components-info.go: the discovery shape, fields of getComponentApi.
      const shape = defs.map(platformListing).map((c) => ({
        name: c.name,
        ...(c.description ? { description: c.description } : {}),
        ...(c.info ? { info: c.info } : {}),
        ...(c.tags.length > 0 ? { tags: c.tags } : {}),
      }));
      console.log(JSON.stringify(shape, null, 2));
      return 0;
    }
    const list = defs.map(describeComponent);
    for (const c of list) console.log(`${c.name} - ${c.description}`);
    console.log(`${list.length} component${list.length === 1 ? "" : "s"} registered`);
    for (const w of errorPortWarnings(defs)) console.error(`warning: ${w}`);
    return 0;
  },
};

/** `tools rbac-check`: Go's lines and exit codes (cli/rbac-check.go). */
async function rbacCheck(defs: readonly ComponentDefinition[], needs: ComponentNeeds[], manifestsDir: string | undefined, strict: boolean): Promise<number> {
  let manifests: NodeManifest[] = [];
  if (manifestsDir !== undefined) {
    const dir = resolve(manifestsDir);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
      console.error(`rbac-check: manifests directory not found: ${manifestsDir}`);
      return 1;
    }
    const { readManifestDir } = await import("../../local/manifests.ts");
    manifests = readManifestDir(dir, manifestsDir).flatMap((f) => f.nodes);
  }
  const findings = checkRbacCoverage(
    needs.map((n, i) => ({ ...n, ports: defs[i]!.ports() })),
    manifests,
  );
  if (findings.length === 0) {
    console.log(RBAC_CHECK_OK);
    return 0;
  }
  process.stderr.write(rbacCheckReport(findings));
  return strict ? 1 : 0; // Go: non-zero only on request, so a module mid-change still builds
}

/** `tools keda-values` (see the file header). Exit 0 printed, 2 bad or misplaced flags or min=0 refused. */
async function kedaValues(
  flags: {
    release?: string;
    namespace?: string;
    "module-name"?: string;
    autoscale?: string;
    "nats-url"?: string;
    "nats-token-secret"?: string;
    "keda-endpoint"?: string;
    "keda-auth-secret"?: string;
    manifests?: string;
    "chart-values"?: boolean;
  },
  needs: ComponentNeeds[],
): Promise<number> {
  try {
    if (!flags.release) throw new ProvisionInputError("--release", "is required (the Helm release name the chart was installed as)");
    if (flags.autoscale !== undefined && isAutoscaleOff(flags.autoscale)) {
      throw new ProvisionInputError(
        "--autoscale",
        `${JSON.stringify(flags.autoscale)} leaves nothing to print: keda-values emits autoscaling. To stop scaling a chart release, delete its ScaledObject and drop the overlay`,
      );
    }
    // Each flag goes into one of the two outputs: one given to the other is refused, never dropped.
    const chart = flags["chart-values"] === true;
    for (const f of chart ? (["keda-endpoint", "keda-auth-secret"] as const) : (["nats-url", "nats-token-secret"] as const)) {
      if (flags[f] === undefined) continue;
      throw new ProvisionInputError(
        `--${f}`,
        chart
          ? "goes into the ScaledObject, which --chart-values does not print: run keda-values again without --chart-values for it (kubectl apply -f -)"
          : "goes into the chart values overlay only: add --chart-values (the ScaledObject does not use it)",
      );
    }
    if (flags["nats-token-secret"] !== undefined && flags["nats-url"] === undefined) {
      throw new ProvisionInputError("--nats-token-secret", "needs --nats-url (the broker the token is for, without credentials)");
    }
    const natsUrl = flags["nats-url"] === undefined ? undefined : checkChartNatsUrl(flags["nats-url"]);
    const natsTokenSecret = flags["nats-token-secret"] === undefined ? undefined : parseTokenSecret(flags["nats-token-secret"]);
    // The namespace, endpoint and Secret are checked as provision checks them.
    const checked = resolveOptions({
      namespace: flags.namespace,
      name: flags.release,
      autoscale: flags.autoscale ?? "on",
      kedaEndpoint: flags["keda-endpoint"],
      kedaAuthSecret: flags["keda-auth-secret"],
    });
    const release: ChartRelease = {
      release: flags.release,
      namespace: checked.namespace,
      ...(flags["module-name"] ? { moduleName: flags["module-name"] } : {}),
      ...(natsUrl !== undefined ? { natsUrl } : {}),
      ...(natsTokenSecret !== undefined ? { natsTokenSecret } : {}),
      ...(checked.kedaEndpoint ? { endpoint: checked.kedaEndpoint } : {}),
      ...(checked.kedaAuthSecret ? { authSecret: checked.kedaAuthSecret } : {}),
    };
    const autoscale = checked.autoscale!;
    const target = chartKedaTarget(release);
    for (const w of await scaleToZeroCheck(autoscale, needs, target.module, flags.manifests)) console.error(`warning: ${w}`);
    if (flags["chart-values"]) process.stdout.write(YAML.stringify(chartKedaValues(release, autoscale), { indentSeq: false }));
    else process.stdout.write(toYamlStream(chartKedaManifests(release, autoscale).map((m) => m.object)));
    return 0;
  } catch (e) {
    if (!(e instanceof ProvisionInputError)) throw e;
    console.error(`tinyhost tools keda-values: ${e.message}`);
    return 2;
  }
}
