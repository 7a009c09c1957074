/**
 * The local stand-in for the Dockerfile's `BUN_IMAGE` (`oven/bun:<version>-debian`): the local
 * Debian base plus the binary of the project's own `bun` npm dependency
 * (node_modules/bun/bin/bun.exe, placed there by the package's install script), built by buildah
 * from ./bun-base.Containerfile. Cached in buildah's store under a key of the binary's bytes, the
 * recipe and the Debian base, so it is rebuilt only when one of them changes.
 */
import { existsSync, linkSync, copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Buildah } from "./buildah.ts";
import { contentKey, imageCacheDir } from "./cache.ts";
import type { BaseImage } from "./debian-base.ts";

const ROOT = resolve(import.meta.dir, "../..");
const RECIPE = join(import.meta.dir, "bun-base.Containerfile");

/** Repository of the local Bun base images in buildah's store. */
export const BUN_BASE_REPOSITORY = "localhost/tinyhost-base/bun";

/**
 * Path of the `bun` npm dependency's binary, checked to be Bun `version`.
 * @throws Error naming the path and the fix when it is missing (no `npm ci`, or install scripts
 *   skipped) or reports another version.
 */
export function bunBinary(version: string, root = ROOT): string {
  const path = join(root, "node_modules/bun/bin/bun.exe");
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm ci\` (with install scripts: the bun package places its binary there)`);
  const got = Bun.spawnSync([path, "--version"]).stdout.toString().trim();
  if (got !== version) throw new Error(`${path} is Bun ${JSON.stringify(got)}, the Dockerfile's BUN_IMAGE wants ${version}: run \`npm ci\``);
  return path;
}

/**
 * The Bun base for Bun `version` on `debian`, from buildah's store or built now.
 * @throws Error from {@link bunBinary}; CommandError when the build fails.
 */
export async function ensureBunBase(buildah: Buildah, version: string, debian: BaseImage): Promise<BaseImage> {
  const binary = bunBinary(version);
  const key = contentKey(["bun-base/1", readFileSync(RECIPE), debian.ref, readFileSync(binary)]);
  const ref = `${BUN_BASE_REPOSITORY}:${version}-debian-${key}`;
  if (await buildah.inspect(ref)) return { ref, built: false };
  const context = mkdtempSync(join(imageCacheDir(), ".bun-base-"));
  try {
    const target = join(context, "bun");
    try {
      linkSync(binary, target);
    } catch {
      copyFileSync(binary, target);
    }
    await buildah.bud({ file: RECIPE, context, tag: ref, buildArgs: { DEBIAN_IMAGE: debian.ref } });
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
  return { ref, built: true };
}
