/**
 * Credential sources that need no process: fixed values, and a token file re-read when it changes.
 * (The exec plugin lives in exec-credential.ts.)
 */
import { readFile, stat } from "node:fs/promises";
import { KubeConfigError } from "./errors.ts";
import type { Credentials, CredentialSource } from "./types.ts";

/** Credentials that never change (kubeconfig `token`, client-certificate data, basic auth, or none). */
export class StaticCredentials implements CredentialSource {
  readonly #creds: Credentials;

  /** @param creds - the fixed credentials; `{}` means anonymous. */
  constructor(creds: Credentials) {
    this.#creds = creds;
  }

  /** @returns the fixed credentials. */
  current(): Promise<Credentials> {
    return Promise.resolve(this.#creds);
  }

  /** @returns false: a retry would send the same credentials. */
  invalidate(): boolean {
    return false;
  }
}

/** Options of {@link TokenFileCredentials}. */
export interface TokenFileOptions {
  /** Absolute path of the token file. */
  path: string;
  /** Where the path came from, for errors: the kubeconfig path or `in-cluster`. */
  source: string;
  /** The field naming the path, for errors, e.g. `users[name="ci"].user.tokenFile`. */
  field: string;
  /** Other credentials sent alongside the token (e.g. a client certificate). Default none. */
  base?: Credentials;
  /** Least time between two `stat` calls of the file, ms. Default 1000 (re-read "at most once per second"). */
  checkIntervalMs?: number;
  /**
   * Longest time a read token is used without re-reading the file even if its mtime did not change, ms.
   * Default: unbounded. In-cluster uses 60,000: projected service-account tokens rotate and client-go
   * re-reads them at least every minute (kubernetes/kubernetes#68164).
   */
  maxAgeMs?: number;
  /** Clock in ms, injectable for tests. Default `Date.now`. */
  now?: () => number;
}

/**
 * A bearer token read from a file and re-read when the file's mtime changes (checked at most once
 * per {@link TokenFileOptions.checkIntervalMs}), when it is older than
 * {@link TokenFileOptions.maxAgeMs}, or after a 401. Rule: kubeconfig `tokenFile` and in-cluster
 * token semantics of client-go (`transport/token_source.go`, cachingTokenSource).
 */
export class TokenFileCredentials implements CredentialSource {
  readonly #opts: Required<Omit<TokenFileOptions, "maxAgeMs" | "base">> & { maxAgeMs: number; base: Credentials };
  #token: string | undefined;
  #mtimeMs = -1;
  #readAt = 0;
  #checkedAt = Number.NEGATIVE_INFINITY;

  /** @param opts - see {@link TokenFileOptions}. */
  constructor(opts: TokenFileOptions) {
    this.#opts = {
      path: opts.path,
      source: opts.source,
      field: opts.field,
      base: opts.base ?? {},
      checkIntervalMs: opts.checkIntervalMs ?? 1000,
      maxAgeMs: opts.maxAgeMs ?? Number.POSITIVE_INFINITY,
      now: opts.now ?? Date.now,
    };
  }

  /**
   * @returns the base credentials plus the current token.
   * @throws KubeConfigError when the file cannot be read or is empty.
   */
  async current(): Promise<Credentials> {
    const now = this.#opts.now();
    const stale = this.#token === undefined || now - this.#readAt >= this.#opts.maxAgeMs;
    if (stale || now - this.#checkedAt >= this.#opts.checkIntervalMs) {
      this.#checkedAt = now;
      const mtimeMs = await this.#stat();
      if (stale || mtimeMs !== this.#mtimeMs) await this.#read(mtimeMs, now);
    }
    return { ...this.#opts.base, token: this.#token };
  }

  /** Forces a re-read on the next {@link current}. @returns true: the file may hold a new token. */
  invalidate(): boolean {
    this.#token = undefined;
    return true;
  }

  async #stat(): Promise<number> {
    try {
      return (await stat(this.#opts.path)).mtimeMs;
    } catch (cause) {
      throw new KubeConfigError(this.#opts.source, this.#opts.field, `names ${JSON.stringify(this.#opts.path)}, which cannot be read`, { cause });
    }
  }

  async #read(mtimeMs: number, now: number): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.#opts.path, "utf8");
    } catch (cause) {
      throw new KubeConfigError(this.#opts.source, this.#opts.field, `names ${JSON.stringify(this.#opts.path)}, which cannot be read`, { cause });
    }
    const token = text.trim();
    if (!token) throw new KubeConfigError(this.#opts.source, this.#opts.field, `names ${JSON.stringify(this.#opts.path)}, which is empty`);
    this.#token = token;
    this.#mtimeMs = mtimeMs;
    this.#readAt = now;
  }
}
