/**
 * Where placeholder values come from: the module namespace's Secrets in a cluster (as Go's
 * `secret.Resolve` reads them with the module's client), environment variables and a secrets file
 * in local mode. Every failure is a {@link SecretError} naming the placeholder, so the node's error
 * says which one to fix.
 */
import { existsSync, readFileSync } from "node:fs";
import YAML from "yaml";
import { TinyError } from "../../core/errors.ts";
import { KubeApiError, secrets, type KubeClient } from "../../k8s/client/index.ts";
import type { SecretRef } from "./placeholder.ts";

/** Why a placeholder could not be resolved. */
export type SecretErrorCode = "SECRET_NOT_FOUND" | "SECRET_KEY_NOT_FOUND" | "SECRET_READ_FAILED" | "SECRET_SOURCE_MISSING";

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
        if (err instanceof KubeApiError && err.status === 404) throw new SecretError("SECRET_NOT_FOUND", ref, `Secret "${ref.name}" not found in namespace "${namespace}"`, { cause: err });
        const why = err instanceof KubeApiError && err.status === 403 ? " (forbidden: the module's RBAC does not grant get on this Secret — declare it in the component's requirements.secrets)" : "";
        throw new SecretError("SECRET_READ_FAILED", ref, `cannot read Secret "${ref.name}" in namespace "${namespace}"${why}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
      const data = secret.data ?? {};
      const encoded = data[ref.key];
      if (encoded === undefined) {
        const keys = Object.keys(data);
        throw new SecretError("SECRET_KEY_NOT_FOUND", ref, `key "${ref.key}" not found in Secret "${ref.name}" in namespace "${namespace}" (its keys: ${keys.length ? keys.join(", ") : "none"})`);
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
 */
export function localSecretSource(file: string, env: Record<string, string | undefined> = process.env, shownFile = file): SecretSource {
  return {
    where: `${SECRET_ENV_PREFIX}* variables or ${shownFile}`,
    async read(ref) {
      const fromEnv = env[secretEnvName(ref)];
      if (fromEnv !== undefined) return fromEnv;
      let doc: unknown;
      if (existsSync(file)) {
        try {
          // Every scalar as written (YAML's failsafe schema): a PIN `012345` stays `012345`, not 12345.
          doc = YAML.parse(readFileSync(file, "utf8"), { schema: "failsafe" });
        } catch (err) {
          throw new SecretError("SECRET_READ_FAILED", ref, `cannot read ${shownFile}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
        }
      }
      // An empty file is no Secrets; any other shape is a malformed file, said so rather than "not found".
      if (doc !== undefined && doc !== null && !isMapping(doc)) throw new SecretError("SECRET_READ_FAILED", ref, `${shownFile} must map Secret names to {key: value}, got ${kindOf(doc)}`);
      const secret = doc ? (doc as Record<string, unknown>)[ref.name] : undefined;
      if (secret === undefined || secret === null) {
        throw new SecretError("SECRET_NOT_FOUND", ref, `no variable ${secretEnvName(ref)} and no Secret "${ref.name}" in ${shownFile}${existsSync(file) ? "" : " (no such file)"}`);
      }
      if (!isMapping(secret)) throw new SecretError("SECRET_READ_FAILED", ref, `Secret "${ref.name}" in ${shownFile} must map keys to values, got ${kindOf(secret)}`);
      if (!Object.hasOwn(secret, ref.key)) {
        throw new SecretError("SECRET_KEY_NOT_FOUND", ref, `no variable ${secretEnvName(ref)} and no key "${ref.key}" in Secret "${ref.name}" of ${shownFile} (its keys: ${Object.keys(secret).join(", ") || "none"})`);
      }
      const value = secret[ref.key];
      if (value === null || value === undefined || value === "") throw new SecretError("SECRET_READ_FAILED", ref, `key "${ref.key}" of Secret "${ref.name}" in ${shownFile} has no value`);
      if (typeof value === "object") throw new SecretError("SECRET_READ_FAILED", ref, `key "${ref.key}" of Secret "${ref.name}" in ${shownFile} must be a string, got ${kindOf(value)}`);
      return String(value);
    },
  };
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
    return Promise.reject(new SecretError("SECRET_SOURCE_MISSING", ref, "this runtime has no secret source (a cluster module reads its namespace's Secrets; local mode reads TINY_SECRET_* variables and .tinyhost/secrets.yaml)"));
  },
};
