/**
 * Settings strings that look like a `[[secret:…]]` placeholder but are not one — `[[secret:]]`,
 * `[[secret:name]]` (no key), `[[secret:a/b/c]]`, a placeholder inside a longer string. Go passes
 * them on as literal text (pkg/secret resolves only whole-string matches of its `placeholderRe`),
 * and so does tinyhost; but the component would then use the text as a credential, so the runtime
 * says so: one warning per node naming each setting path and the text.
 */
import type { ComponentLogger } from "../../core/context.ts";
import { SystemPort } from "../../core/ports.ts";
import type { HopSite, HopSpan, Tracer } from "../runner/tracer.ts";
import { SECRET_PLACEHOLDER } from "./placeholder.ts";

const SETTINGS_PORT: string = SystemPort.settings;

/** Where a placeholder's text starts. */
const MARKER = "[[secret:";
/** Nesting walked at most, as placeholder.ts. */
const MAX_DEPTH = 64;

/** One string that is not a placeholder though it holds the marker. */
export interface MalformedPlaceholder {
  /** The setting's path from the settings root, e.g. `token`, `headers[0].value`. */
  path: string;
  /** The string as written. */
  text: string;
  /** Why it is not resolved. */
  reason: string;
}

function isPlainObject(v: object): v is Record<string, unknown> {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** `path` extended by object key `k`: `a.b`, or `a["x-y"]` for a key that is no identifier. */
function key(path: string, k: string): string {
  if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k)) return `${path}[${JSON.stringify(k)}]`;
  return path === "" ? k : `${path}.${k}`;
}

/**
 * Every string in `value` (arrays and plain objects, as placeholders are found) that holds
 * `[[secret:` but is not exactly one `[[secret:<name>/<key>]]` with both parts of `[A-Za-z0-9._-]`.
 */
export function malformedPlaceholders(value: unknown): MalformedPlaceholder[] {
  const out: MalformedPlaceholder[] = [];
  walk(value, "", 0, out);
  return out;
}

function walk(value: unknown, path: string, depth: number, out: MalformedPlaceholder[]): void {
  if (typeof value === "string") {
    if (!value.includes(MARKER) || SECRET_PLACEHOLDER.test(value)) return;
    const whole = value.startsWith(MARKER) && value.endsWith("]]") && value.indexOf("]]") === value.length - 2;
    const reason = whole
      ? "needs the form [[secret:<name>/<key>]], name and key of letters, digits, '.', '_' and '-'"
      : "a placeholder must be the whole value";
    out.push({ path: path === "" ? "(settings)" : path, text: value, reason });
    return;
  }
  if (value === null || typeof value !== "object" || depth > MAX_DEPTH) return;
  if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${path}[${i}]`, depth + 1, out));
  else if (isPlainObject(value)) for (const k in value) walk(value[k], key(path, k), depth + 1, out);
}

/**
 * Logs one warning for `node` naming each malformed placeholder of its decoded `settings`, unless
 * `last` — what the previous call returned for this node — shows the same ones were reported
 * already (settings are re-delivered; the warning is not repeated until they change).
 * @returns the signature to pass as `last` next time ("" when there is none).
 */
export function warnMalformedPlaceholders(settings: unknown, log: Pick<ComponentLogger, "warn">, node: string, last = ""): string {
  const found = malformedPlaceholders(settings);
  const signature = found.length === 0 ? "" : JSON.stringify(found.map((f) => [f.path, f.text]));
  if (signature === "" || signature === last) return signature;
  const list = found.map((f) => `${f.path}: ${JSON.stringify(f.text)} (${f.reason})`).join("; ");
  log.warn(
    { node, placeholders: found.map((f) => ({ path: f.path, text: f.text })) },
    `settings hold ${found.length === 1 ? "a string that is not a" : `${found.length} strings that are not`} [[secret:<name>/<key>]] placeholder${found.length === 1 ? "" : "s"}, passed on as literal text (as the Go SDK does): ${list}`,
  );
  return signature;
}

/**
 * Hop middleware (src/runtime/scheduler/middleware.ts) that applies {@link warnMalformedPlaceholders}
 * to every settings delivery: its input spans of `_settings` ask the runner for the decoded payload
 * (as local mode's hop watch does) and pass everything on to the inner span. One signature per
 * runner, so a node's warning is not repeated until its settings change (or its component reloads).
 */
export function placeholderWarnings(log: Pick<ComponentLogger, "warn">): { tracer(next: Tracer): Tracer } {
  const last = new WeakMap<HopSite, string>();
  return {
    tracer: (next) => ({
      active: next.active,
      output: (site, port, data) => next.output(site, port, data),
      input(site, port, msg): HopSpan {
        const inner = next.input(site, port, msg);
        if (port !== SETTINGS_PORT) return inner;
        return {
          recording: true,
          event: (name, attributes) => inner.event(name, attributes),
          data(value) {
            last.set(site, warnMalformedPlaceholders(value, log, site.name, last.get(site)));
            if (inner.recording) inner.data(value);
          },
          run: (fn) => inner.run(fn),
          usage: (totals) => inner.usage(totals),
          end: (error) => inner.end(error),
        };
      },
    }),
  };
}
