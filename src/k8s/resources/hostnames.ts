/**
 * Validation of what exposePort writes into the Ingress and Service: hostnames (RFC 1123 as the
 * Ingress API checks them, plus a leading `*.` wildcard), the TLS secret name derived from a
 * hostname, and port numbers. All checks run before anything is changed (runtime-spec §16 item 26).
 */
import { InvalidHostnameError, InvalidPortError } from "./errors.ts";

/** Max length of a DNS name and of a Kubernetes object name (RFC 1123 §2.1, Kubernetes "Object Names and IDs"). */
export const MAX_HOSTNAME_LENGTH = 253;
/** Max length of one DNS label (RFC 1035 §2.3.4). */
export const MAX_LABEL_LENGTH = 63;
/** Suffix of the TLS secret name per hostname (runtime-spec §7.1 step 9). */
export const TLS_SECRET_SUFFIX = "-tls";
/** What `*` becomes in a TLS secret name, since `*` is not allowed in object names. */
export const WILDCARD_SECRET_LABEL = "wildcard";

const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DIGITS = /^[0-9]+$/;

/**
 * Normalizes and checks one hostname for an Ingress rule: lowercased, one trailing dot removed,
 * then each label must match `[a-z0-9]([-a-z0-9]*[a-z0-9])?` and be ≤ 63 characters, the whole
 * name ≤ 253, not an IPv4 address; a wildcard is allowed only as the whole first label (`*.a.b`),
 * as the Ingress API allows (networking/v1 `IngressRule.host`). The derived TLS secret name must
 * also be a valid object name (≤ 253), so the name may be at most 249 characters.
 * Rule: RFC 1123 §2.1, Kubernetes Ingress validation (`IsDNS1123Subdomain`,
 * `IsWildcardDNS1123Subdomain`).
 *
 * @param input - the hostname as given (any value: components pass untyped data).
 * @returns the normalized hostname, e.g. `api.example.com`.
 * @throws InvalidHostnameError naming the value and the rule it breaks.
 */
export function normalizeHostname(input: unknown): string {
  if (typeof input !== "string") throw new InvalidHostnameError(String(input), `must be a string, got ${typeof input}`);
  let host = input.toLowerCase();
  if (host.endsWith(".")) host = host.slice(0, -1);
  if (host === "") throw new InvalidHostnameError(input, "is empty");
  if (host.length > MAX_HOSTNAME_LENGTH) {
    throw new InvalidHostnameError(input, `is ${host.length} characters long; at most ${MAX_HOSTNAME_LENGTH} are allowed`);
  }
  const labels = host.split(".");
  const wildcard = labels[0] === "*";
  const rest = wildcard ? labels.slice(1) : labels;
  if (wildcard && rest.length === 0) throw new InvalidHostnameError(input, "a wildcard needs a domain after it (*.example.com)");
  for (const label of rest) {
    if (label.includes("*")) {
      throw new InvalidHostnameError(input, "a wildcard is allowed only as the whole first label (*.example.com)");
    }
    if (label === "") throw new InvalidHostnameError(input, "has an empty label (two dots in a row, or a leading dot)");
    if (label.length > MAX_LABEL_LENGTH) {
      throw new InvalidHostnameError(input, `label ${JSON.stringify(label)} is ${label.length} characters long; at most ${MAX_LABEL_LENGTH} are allowed`);
    }
    if (!LABEL.test(label)) {
      throw new InvalidHostnameError(
        input,
        `label ${JSON.stringify(label)} must consist of lower-case letters, digits and '-', and start and end with a letter or digit (RFC 1123)`,
      );
    }
  }
  if (!wildcard && labels.length === 4 && labels.every((l) => DIGITS.test(l))) {
    throw new InvalidHostnameError(input, "must be a DNS name, not an IP address");
  }
  const secret = tlsSecretName(host);
  if (secret.length > MAX_HOSTNAME_LENGTH) {
    throw new InvalidHostnameError(input, `its TLS secret name ${JSON.stringify(secret)} would exceed ${MAX_HOSTNAME_LENGTH} characters`);
  }
  return host;
}

/**
 * Normalizes a list of hostnames and drops duplicates, keeping the first occurrence's order.
 * @throws InvalidHostnameError for the first invalid entry (see {@link normalizeHostname}).
 */
export function normalizeHostnames(inputs: readonly unknown[]): string[] {
  const out: string[] = [];
  for (const input of inputs) {
    const host = normalizeHostname(input);
    if (!out.includes(host)) out.push(host);
  }
  return out;
}

/**
 * The auto hostname: `<autoHostName>-<suffix>` (hyphen join, runtime-spec §7.1 step 6), e.g.
 * `abc` + `x.example.com` → `abc-x.example.com`, then normalized.
 * @throws InvalidHostnameError naming the composed value, the auto hostname and the suffix.
 */
export function autoHostname(autoHostName: string, suffix: string): string {
  const composed = `${autoHostName}-${suffix}`;
  try {
    return normalizeHostname(composed);
  } catch (e) {
    if (e instanceof InvalidHostnameError) {
      throw new InvalidHostnameError(
        composed,
        `${e.message.slice(e.message.indexOf(": ") + 2)} (auto hostname ${JSON.stringify(autoHostName)} + ingress suffix ${JSON.stringify(suffix)})`,
      );
    }
    throw e;
  }
}

/**
 * The TLS secret name for a hostname: `<hostname>-tls` (runtime-spec §7.1 step 9), with a leading
 * `*` written as `wildcard` because `*` is not allowed in object names (`*.example.com` →
 * `wildcard.example.com-tls`).
 * @param hostname - a normalized hostname.
 */
export function tlsSecretName(hostname: string): string {
  const base = hostname.startsWith("*.") ? WILDCARD_SECRET_LABEL + hostname.slice(1) : hostname;
  return base + TLS_SECRET_SUFFIX;
}

/**
 * Checks a Service port number: an integer from 1 to 65535 (core/v1 `ServicePort.port`).
 * @returns the port.
 * @throws InvalidPortError naming the value.
 */
export function validatePort(port: unknown): number {
  if (typeof port !== "number" || !Number.isInteger(port) || port < 1 || port > 65535) throw new InvalidPortError(port);
  return port;
}
