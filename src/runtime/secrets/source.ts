/**
 * Where placeholder values come from: the module namespace's Secrets in a cluster (as Go's
 * `secret.Resolve` reads them with the module's client), environment variables and a secrets file
 * in local mode. Every failure is a {@link SecretError} naming the placeholder, so the node's error
 * says which one to fix.
 */
import { existsSync, readFileSync } from "node:fs";
import YAML from "yaml";
import { TinyError, messageOf } from "../../core/errors.ts";
import { KubeApiError, secrets, type KubeClient } from "../../k8s/client/index.ts";
import type { SecretRef } from "./placeholder.ts";

/** Why a placeholder could not be resolved. */
export type SecretErrorCode = "SECRET_NOT_FOUND" | "SECRET_KEY_NOT_FOUND" | "SECRET_READ_FAILED" | "SECRET_SOURCE_MISSING" | "SECRET_ENV_AMBIGUOUS";

/** A placeholder that cannot be resolved; the message starts with the placeholder. */
export class SecretError extends TinyError<SecretErrorCode> {
  constructor(
    code: SecretErrorCode,
    readonly ref: SecretRef,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(code, `settings: ${ref.text}: ${detail}`, options);
  }
}

/** Reads the value of one Secret key. */
export interface SecretSource {
  /** Where values come from, for messages (`namespace "ns"`, `TINY_SECRET_* or .tinyhost/secrets.yaml`). */
  readonly where: string;
  /** @throws SecretError when the Secret or key is missing or cannot be read. */
  read(ref: SecretRef): Promise<string>;
}

/**
 * Secrets of `namespace` read with `kube` (one GET per placeholder per delivery, as Go's `fetch`):
 * `data[key]` base64-decoded. The module needs `get` on the named Secrets only (src/provision/rbac.ts
 * `secretRules`).
 */
export function kubeSecretSource(kube: Pick<KubeClient, "get">, namespace: string): SecretSource {
  return {
    where: `namespace "${namespace}"`,
    async read(ref) {
      let secret;
      try {
        secret = await kube.get(secrets, ref.name, namespace);
      } catch (err) {
        if (err instanceof KubeApiError && err.status === 404)
          throw new SecretError("SECRET_NOT_FOUND", ref, `Secret "${ref.name}" not found in namespace "${namespace}"`, { cause: err });
        const why =
          err instanceof KubeApiError && err.status === 403
            ? " (forbidden: the module's RBAC does not grant get on this Secret — declare it in the component's requirements.secrets)"
            : "";
        throw new SecretError("SECRET_READ_FAILED", ref, `cannot read Secret "${ref.name}" in namespace "${namespace}"${why}: ${messageOf(err)}`, {
          cause: err,
        });
      }
      const data = secret.data ?? {};
      const encoded = data[ref.key];
      if (encoded === undefined) {
        const keys = Object.keys(data);
        throw new SecretError(
          "SECRET_KEY_NOT_FOUND",
          ref,
          `key "${ref.key}" not found in Secret "${ref.name}" in namespace "${namespace}" (its keys: ${keys.length ? keys.join(", ") : "none"})`,
        );
      }
      return Buffer.from(encoded, "base64").toString("utf8");
    },
  };
}

/** Prefix of the environment variables local mode reads placeholders from. */
export const SECRET_ENV_PREFIX = "TINY_SECRET_";

/**
 * The environment variable of a placeholder in local mode: `TINY_SECRET_<NAME>__<KEY>`, both parts
 * upper-cased with every character outside `A-Z0-9` turned into `_` — `[[secret:openai/api-key]]`
 * → `TINY_SECRET_OPENAI__API_KEY`.
 */
export function secretEnvName(ref: Pick<SecretRef, "name" | "key">): string {
  const part = (s: string) => s.toUpperCase().replace(/[^A-Z0-9]/g, "_");
  return `${SECRET_ENV_PREFIX}${part(ref.name)}__${part(ref.key)}`;
}

/**
 * Local mode's source: the variable {@link secretEnvName} first, then `file` — YAML or JSON of
 * `{<secret name>: {<key>: <value>}}`, each value taken as the text written (`012345`, `true`),
 * re-read on every lookup so an edit is picked up at the next re-delivery. A missing file is no
 * error; an unreadable or malformed one is, naming the file, as is an empty value.
 *
 * Two placeholders whose names fold to one variable (`a-b` and `a_b`, `Api` and `api`) cannot both
 * be read from it: once both were asked for while the variable is set, each lookup of either fails
 * with `SECRET_ENV_AMBIGUOUS` naming both placeholders and the variable (the one asked for first
 * fails from its next lookup, at the latest its next re-delivery), rather than one value silently
 * serving two Secrets.
 */
export function localSecretSource(file: string, env: Record<string, string | undefined> = process.env, shownFile = file): SecretSource {
  /** Every placeholder asked for, by the variable it maps to. */
  const askedByVar = new Map<string, Map<string, SecretRef>>();
  return {
    where: `${SECRET_ENV_PREFIX}* variables or ${shownFile}`,
    async read(ref) {
      const variable = secretEnvName(ref);
      const asked = askedByVar.get(variable) ?? askedByVar.set(variable, new Map()).get(variable)!;
      asked.set(`${ref.name}/${ref.key}`, ref);
      const fromEnv = env[variable];
      if (fromEnv !== undefined) {
        const other = [...asked.values()].find((r) => r.name !== ref.name || r.key !== ref.key);
        if (other) {
          throw new SecretError(
            "SECRET_ENV_AMBIGUOUS",
            ref,
            `${other.text} and ${ref.text} both map to the variable ${variable}, which cannot tell them apart; unset it and give both in ${shownFile}, or rename one Secret or key`,
          );
        }
        return fromEnv;
      }
      let doc: unknown;
      if (existsSync(file)) {
        try {
          // Every scalar as written (YAML's failsafe schema): a PIN `012345` stays `012345`, not 12345.
          doc = YAML.parse(readFileSync(file, "utf8"), { schema: "failsafe" });
        } catch (err) {
          throw new SecretError("SECRET_READ_FAILED", ref, `cannot read ${shownFile}: ${messageOf(err)}`, { cause: err });
        }
      }
      return valueIn(doc, ref, shownFile, `no variable ${variable} and `, existsSync(file) ? "" : " (no such file)");
    },
  };
}

/**
 * A source over `secrets` — `{<secret name>: {<key>: <value>}}`, the shape of local mode's secrets
 * file — with local mode's checks and messages (a missing Secret or key, an empty value); for the
 * SDK's test harness (src/sdk/testing.ts).
 * @param where - how messages name the map.
 */
export function mapSecretSource(secrets: Readonly<Record<string, Readonly<Record<string, string>>>>, where = "the given secrets"): SecretSource {
  return {
    where,
    async read(ref) {
      return valueIn(secrets, ref, where, "", "");
    },
  };
}

/**
 * The value of `ref` in `doc` (`{<secret name>: {<key>: <value>}}`), as text.
 * @param shown - how messages name `doc`. @param missing - prefix of a not-found message. @param note - suffix of a missing Secret's message.
 * @throws SecretError naming the placeholder: `doc` or the Secret is no mapping, the Secret or key is missing, the value is empty or not a scalar.
 */
function valueIn(doc: unknown, ref: SecretRef, shown: string, missing: string, note: string): string {
  // An empty document is no Secrets; any other shape is malformed, said so rather than "not found".
  if (doc !== undefined && doc !== null && !isMapping(doc))
    throw new SecretError("SECRET_READ_FAILED", ref, `${shown} must map Secret names to {key: value}, got ${kindOf(doc)}`);
  // Own properties only: `[[secret:constructor/name]]` must not reach Object.prototype.
  const secret = isMapping(doc) && Object.hasOwn(doc, ref.name) ? doc[ref.name] : undefined;
  if (secret === undefined || secret === null) throw new SecretError("SECRET_NOT_FOUND", ref, `${missing}no Secret "${ref.name}" in ${shown}${note}`);
  if (!isMapping(secret)) throw new SecretError("SECRET_READ_FAILED", ref, `Secret "${ref.name}" in ${shown} must map keys to values, got ${kindOf(secret)}`);
  if (!Object.hasOwn(secret, ref.key)) {
    throw new SecretError(
      "SECRET_KEY_NOT_FOUND",
      ref,
      `${missing}no key "${ref.key}" in Secret "${ref.name}" of ${shown} (its keys: ${Object.keys(secret).join(", ") || "none"})`,
    );
  }
  const value = secret[ref.key];
  if (value === null || value === undefined || value === "")
    throw new SecretError("SECRET_READ_FAILED", ref, `key "${ref.key}" of Secret "${ref.name}" in ${shown} has no value`);
  if (typeof value === "object")
    throw new SecretError("SECRET_READ_FAILED", ref, `key "${ref.key}" of Secret "${ref.name}" in ${shown} must be a string, got ${kindOf(value)}`);
  return String(value);
}

function isMapping(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function kindOf(v: unknown): string {
  return Array.isArray(v) ? "a list" : v !== null && typeof v === "object" ? "an object" : `a ${typeof v}`;
}

/** The source of a runtime that has none: every placeholder fails, saying so. */
export const NO_SECRET_SOURCE: SecretSource = {
  where: "nowhere",
  read(ref) {
    return Promise.reject(
      new SecretError(
        "SECRET_SOURCE_MISSING",
        ref,
        "this runtime has no secret source (a cluster module reads its namespace's Secrets; local mode reads TINY_SECRET_* variables and .tinyhost/secrets.yaml)",
      ),
    );
  },
};
