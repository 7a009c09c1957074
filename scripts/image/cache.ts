/**
 * Where `npm run image` keeps what it builds once and reuses: the cache dir
 * (`$TINYHOST_IMAGE_CACHE`, else `${XDG_CACHE_HOME:-~/.cache}/tinyhost/images`, beside the
 * kube-apiserver and Go tool caches of scripts/build-*.sh), and the content keys that name a
 * cached base image after its inputs, so changed inputs build a new one and unchanged ones are
 * found again.
 */
import { createHash } from "node:crypto";
import { homedir } from "node:os";
import { join } from "node:path";

/** The image cache dir (not created here). */
export function imageCacheDir(): string {
  if (process.env.TINYHOST_IMAGE_CACHE) return process.env.TINYHOST_IMAGE_CACHE;
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "tinyhost", "images");
}

/**
 * A 12-hex content key of `inputs` (strings and byte arrays, each length-prefixed so no two input
 * lists share a key by concatenation).
 */
export function contentKey(inputs: readonly (string | Uint8Array)[]): string {
  const h = createHash("sha256");
  for (const input of inputs) {
    const bytes = typeof input === "string" ? Buffer.from(input, "utf8") : input;
    h.update(`${bytes.byteLength}:`);
    h.update(bytes);
  }
  return h.digest("hex").slice(0, 12);
}
