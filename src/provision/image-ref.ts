/**
 * Container image references, checked against the grammar Docker, containerd and the kubelet
 * accept (distribution/reference, reference.go and regexp.go):
 *
 *   reference   := name [":" tag] ["@" digest]
 *   name        := [registry "/"] path          (at most 255 characters)
 *   registry    := host [":" port]               host: DNS-ish labels (any case) or [IPv6]
 *   path        := component ("/" component)*
 *   component   := [a-z0-9]+ (("." | "_" | "__" | "-"+) [a-z0-9]+)*   lowercase only
 *   tag         := [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}
 *   digest      := algorithm ":" hex{32,}       e.g. sha256:<64 hex>
 *
 * The first "/"-separated part is the registry when it contains "." or ":", is "localhost", or
 * has upper case (Docker's `splitDockerDomain`); otherwise it is the first path component
 * (`library/nginx`). Parsing names what is wrong, so a placeholder such as `<registry>/x:1`
 * is refused with a reason rather than sent to a cluster that cannot pull it.
 */
import { TinyError } from "../core/errors.ts";

/** A parsed image reference. */
export interface ImageReference {
  /** Registry host and optional port, e.g. `ghcr.io`, `localhost:5000`; undefined = Docker Hub. */
  registry?: string;
  /** Repository path, e.g. `acme/tinyhost`. */
  path: string;
  /** `registry/path` (or `path`): what the chart calls the repository. */
  repository: string;
  /** Tag, e.g. `0.1.0`; undefined when none. */
  tag?: string;
  /** Digest, e.g. `sha256:…`; undefined when none. */
  digest?: string;
}

/** An image reference does not follow the grammar; `reason` says which part and why. code `"IMAGE_REFERENCE"`. */
export class ImageReferenceError extends TinyError<"IMAGE_REFERENCE"> {
  /** @param reference the refused text. @param reason what is wrong, quoting the part. */
  constructor(
    readonly reference: string,
    readonly reason: string,
  ) {
    super("IMAGE_REFERENCE", `${JSON.stringify(reference)} is not an image reference: ${reason}`);
    this.name = "ImageReferenceError";
  }
}

/** The grammar in one line, for messages. */
export const IMAGE_REFERENCE_FORM = "[registry[:port]/]path[:tag][@digest] with a lowercase path, e.g. ghcr.io/acme/tinyhost:0.1.0";

/** Longest `name` (registry + path), characters (distribution/reference `NameTotalLengthMax`). */
export const MAX_IMAGE_NAME_LENGTH = 255;

const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const DIGEST = /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$/;
const DOMAIN_LABEL = /^(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])$/;
const IPV6 = /^\[[a-fA-F0-9:]+\]$/;

/**
 * Parses `reference`.
 * @throws ImageReferenceError naming the part that breaks the grammar (empty; bad digest; bad
 *   tag; bad registry host or port; empty, upper-case or otherwise invalid path component; name
 *   over 255 characters). A placeholder in angle brackets gets a hint to replace it.
 */
export function parseImageReference(reference: string): ImageReference {
  const fail = (reason: string): never => {
    const placeholder = /<[^>]*>/.exec(reference);
    throw new ImageReferenceError(reference, placeholder ? `${reason} — replace the placeholder ${placeholder[0]}` : reason);
  };
  if (reference === "") fail("it is empty");
  if (/\s/.test(reference)) fail("it contains white space");
  let rest = reference;
  let digest: string | undefined;
  const at = rest.indexOf("@");
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) fail(`the digest ${JSON.stringify(digest)} is not <algorithm>:<at least 32 hex digits> (e.g. sha256:<64 hex>)`);
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(":");
  if (colon >= 0 && !rest.slice(colon + 1).includes("/")) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) fail(`the tag ${JSON.stringify(tag)} is not [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}`);
  }
  if (rest === "") fail("it has no repository path before the tag or digest");
  const parts = rest.split("/");
  let registry: string | undefined;
  const first = parts[0]!;
  if (parts.length > 1 && (/[.:]/.test(first) || first === "localhost" || /[A-Z]/.test(first))) {
    registry = first;
    parts.shift();
    checkRegistry(registry, fail);
  }
  for (const part of parts) {
    if (part === "") fail(`the path ${JSON.stringify(parts.join("/"))} has an empty component (a leading, trailing or double "/")`);
    if (PATH_COMPONENT.test(part)) continue;
    if (PATH_COMPONENT.test(part.toLowerCase())) fail(`the path component ${JSON.stringify(part)} has upper-case letters (repository paths are lowercase)`);
    fail(`the path component ${JSON.stringify(part)} is not lowercase letters and digits separated by ".", "_", "__" or "-"`);
  }
  const path = parts.join("/");
  const repository = registry ? `${registry}/${path}` : path;
  if (repository.length > MAX_IMAGE_NAME_LENGTH) fail(`the name is ${repository.length} characters (at most ${MAX_IMAGE_NAME_LENGTH})`);
  return { ...(registry ? { registry } : {}), path, repository, ...(tag !== undefined ? { tag } : {}), ...(digest !== undefined ? { digest } : {}) };
}

function checkRegistry(registry: string, fail: (reason: string) => never): void {
  let host = registry;
  const portAt = registry.startsWith("[") ? registry.indexOf(":", registry.indexOf("]")) : registry.indexOf(":");
  if (portAt >= 0) {
    host = registry.slice(0, portAt);
    const port = registry.slice(portAt + 1);
    const n = Number(port);
    if (!/^[0-9]+$/.test(port) || n < 1 || n > 65535) fail(`the registry port ${JSON.stringify(port)} is not a number 1–65535`);
  }
  const hostOk = IPV6.test(host) || (host !== "" && host.split(".").every((label) => DOMAIN_LABEL.test(label)));
  if (!hostOk) fail(`the registry host ${JSON.stringify(host)} is not a host name, IPv4 or [IPv6] address`);
}

/**
 * The fully qualified form containerd and the kubelet store `reference` under (Docker's
 * `ParseNormalizedNamed`): no registry (or `index.docker.io`) means Docker Hub (`docker.io`), and a
 * one-component path there is an official image under `library/` — `tinyhost:0.1.0` is
 * `docker.io/library/tinyhost:0.1.0`. Tag and digest are kept.
 * @throws ImageReferenceError from {@link parseImageReference}.
 */
export function normalizeImageReference(reference: string): string {
  const ref = parseImageReference(reference);
  const registry = ref.registry === undefined || ref.registry === "index.docker.io" ? "docker.io" : ref.registry;
  const path = registry === "docker.io" && !ref.path.includes("/") ? `library/${ref.path}` : ref.path;
  return `${registry}/${path}${ref.tag !== undefined ? `:${ref.tag}` : ""}${ref.digest !== undefined ? `@${ref.digest}` : ""}`;
}
