/**
 * Names of TinySystems objects: sanitizing, the node-name format
 * `<md5(project+flow)[:8]>.<module>.<component>-<suffix>`, and module-name matching.
 * Ownership and routing key off the node NAME, never `spec.module` (runtime-spec §16.1), so these
 * must agree with the Go SDK exactly. Sources: pkg/utils/sanitize.go, pkg/utils/naming.go,
 * module/info.go, module/naming_match.go (runtime-spec §1.9, §6, §8).
 */
import { createHash } from "node:crypto";
import { TinyError } from "../errors.ts";

export { Base64JsonError, base64Json, decodeBase64Json } from "./bytes.ts";

/** Max length, in characters (runes), of {@link sanitizeResourceName}'s result. runtime-spec §8. */
export const MAX_SANITIZED_NAME_LENGTH = 48;

/** Separator of the parts of a node name. */
export const NODE_NAME_SEPARATOR = ".";

const NON_ALNUM_RUNS = /[^a-z0-9]+/g;

function trimDashes(s: string): string {
  return s.replace(/^-+|-+$/g, "");
}

/**
 * Make a string usable in a resource name: lowercase, every run of characters outside `[a-z0-9]`
 * becomes one `-`, keep the LAST 48 characters (pod-name suffixes are what differ), trim `-` at
 * both ends (after the cut too, so the result never starts with `-`).
 * Source: runtime-spec §8 `SanitizeResourceName`; Go pkg/utils/sanitize.go and its test
 * ("long name truncating onto a separator").
 *
 * @param s Any string, e.g. a module name `tinysystems/common-module-v0`.
 * @returns A DNS-1123-safe fragment of at most 48 characters (may be empty).
 */
export function sanitizeResourceName(s: string): string {
  const dashed = trimDashes(s.toLowerCase().replace(NON_ALNUM_RUNS, "-"));
  const chars = Array.from(dashed); // count code points like Go counts runes
  const kept = chars.length > MAX_SANITIZED_NAME_LENGTH ? chars.slice(-MAX_SANITIZED_NAME_LENGTH).join("") : dashed;
  return trimDashes(kept);
}

/**
 * Make a string usable as a leader-election identity: lowercase, runs of characters outside
 * `[a-z0-9]` become one `-`; no trimming, no truncation.
 * Source: runtime-spec §6 `SanitizeIdentity(HOSTNAME)`; Go pkg/utils/sanitize.go.
 *
 * @param s Usually the pod's `HOSTNAME`.
 */
export function sanitizeIdentity(s: string): string {
  return s.toLowerCase().replace(NON_ALNUM_RUNS, "-");
}

/** A node name is not `<prefix>.<module>.<component>…`. */
export class InvalidNodeNameError extends TinyError<"invalid_node_name"> {
  /** The rejected name. */
  readonly nodeName: string;

  /** @param nodeName The name that failed to parse. */
  constructor(nodeName: string) {
    const parts = nodeName.split(NODE_NAME_SEPARATOR).length;
    super(
      "invalid_node_name",
      `node name ${JSON.stringify(nodeName)} is invalid: expected at least 3 "."-separated parts ` +
        `(<flow-prefix>.<module>.<component>-<suffix>), found ${parts}`,
    );
    this.name = "InvalidNodeNameError";
    this.nodeName = nodeName;
  }
}

/** The module and component segments of a node name. */
export interface NodeNameParts {
  /** Second segment: the (sanitized) module name, e.g. `tinysystems-common-module-v0`. */
  module: string;
  /** Third segment as written, INCLUDING the generated suffix, e.g. `router-4be1c`. */
  component: string;
}

/**
 * Split a node name on `.` and return its 2nd and 3rd segments.
 * Source: runtime-spec §1.9 `ParseFullName` (≥3 parts; parts[1]=module, parts[2]=component).
 *
 * @param nodeName A TinyNode name, e.g. `3f9c2e1a.tinysystems-common-module-v0.router-4be1c`.
 * @throws InvalidNodeNameError when the name has fewer than three parts.
 */
export function parseFullName(nodeName: string): NodeNameParts {
  const parts = nodeName.split(NODE_NAME_SEPARATOR);
  if (parts.length < 3) throw new InvalidNodeNameError(nodeName);
  return { module: parts[1] as string, component: parts[2] as string };
}

function normalizeModuleSeparators(s: string): string {
  return s.replaceAll("/", "-").toLowerCase();
}

/**
 * Whether a module name found on a resource (e.g. a node name's module segment) identifies the
 * running module. Case-insensitive, `/` ≡ `-`, and a publisher prefix is optional both ways:
 * equal, or `running` ends with `-<found>`, or `found` ends with `-<running>`. Empty → false.
 * Source: runtime-spec §1.9 `NameMatches`; Go module/naming_match.go.
 *
 * @param found Module name seen on the resource.
 * @param running This module's name.
 */
export function nameMatches(found: string, running: string): boolean {
  const f = normalizeModuleSeparators(found);
  const r = normalizeModuleSeparators(running);
  if (f === "" || r === "") return false;
  return f === r || r.endsWith(`-${f}`) || f.endsWith(`-${r}`);
}

/**
 * First 8 hex digits of md5(project + flow) (plain concatenation): the prefix every node of a
 * flow shares. Source: runtime-spec §8; Go pkg/utils/naming.go `GetFlowHashPrefix`.
 *
 * @param project TinyProject resource name.
 * @param flow TinyFlow resource name.
 */
export function flowHashPrefix(project: string, flow: string): string {
  return createHash("md5")
    .update(project + flow, "utf8")
    .digest("hex")
    .slice(0, 8);
}

/**
 * The `metadata.generateName` of a new TinyNode:
 * `<md5(project+flow)[:8]>.<sanitized module>.<sanitized component>-`; the API server appends
 * 5 random characters. Source: runtime-spec §8; Go pkg/utils/naming.go `GetNodeGenerateName`.
 *
 * @param project TinyProject resource name.
 * @param flow TinyFlow resource name.
 * @param module Module name, e.g. `tinysystems/common-module-v0`.
 * @param component Component name, e.g. `http_server` (becomes `http-server`).
 * @returns The generateName prefix, ending in `-`.
 */
export function generateNodeName(project: string, flow: string, module: string, component: string): string {
  return [flowHashPrefix(project, flow), sanitizeResourceName(module), sanitizeResourceName(component)].join(NODE_NAME_SEPARATOR) + "-";
}
