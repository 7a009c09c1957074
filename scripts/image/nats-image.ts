/**
 * The NATS broker image from Debian's `nats-server` package on the local Debian base
 * (./nats.Containerfile), tagged with the server's version as the package reports it:
 * `tinyhost-nats:<x.y.z>`. `tinyhost provision --nats-image <ref>` runs it in place of the public
 * `nats` image (src/provision/nats.ts writes the same flags and config for both).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { normalizeImageReference } from "../../src/provision/image-ref.ts";
import { writeArchive, type BuildContext, type BuiltImage } from "./build-context.ts";
import { baseImageDefaults } from "./module-image.ts";

/** Repository of the local NATS image. */
export const NATS_REPOSITORY = "tinyhost-nats";

const RECIPE = join(import.meta.dir, "nats.Containerfile");

/**
 * The `x.y.z` of `nats-server --version` output (`nats-server: v2.9.10`) or of its Debian package
 * version (`2.9.10-1+b5`).
 * @throws Error quoting the output when it names no version.
 */
export function natsVersion(output: string): string {
  const v = /\bv?(\d+\.\d+\.\d+)\b/.exec(output)?.[1];
  if (!v) throw new Error(`nats-server --version printed no version: ${JSON.stringify(output.trim())}`);
  return v;
}

/** The `Version:` of package `name` in a dpkg status file, or "" when it is not installed. */
export function dpkgVersion(status: string, name: string): string {
  const stanza = status.split(/\n\n+/).find((st) => new RegExp(`^Package: ${name}$`, "m").test(st)) ?? "";
  return /^Version: (.+)$/m.exec(stanza)?.[1] ?? "";
}

/**
 * Builds the NATS image (apt fetches the package from this machine's Debian mirror on the first
 * build; later builds reuse the cached layer) and writes `dist/images/tinyhost-nats-<version>.tar`.
 * @throws CommandError when the build or the version probe fails.
 */
export async function buildNatsImage(ctx: BuildContext): Promise<BuiltImage> {
  const debian = await ctx.debianBase(baseImageDefaults().suite);
  const local = `localhost/${NATS_REPOSITORY}:build`;
  await ctx.buildah.bud({ file: RECIPE, context: import.meta.dir, tag: local, buildArgs: { BASE_IMAGE: debian.ref }, hostNetwork: true });
  const container = (await ctx.buildah.run(["from", "--pull=never", local], { capture: true, log: "quiet" })).trim();
  let version: string;
  try {
    // The package's Version field, read from the mounted root: the `buildah run … --version` probe
    // it replaces once printed nothing (exit 0) in a full CI run while other builds shared the store.
    const root = (await ctx.buildah.run(["mount", container], { capture: true, log: "quiet" })).trim();
    try {
      version = natsVersion(dpkgVersion(readFileSync(join(root, "var/lib/dpkg/status"), "utf8"), "nats-server"));
    } finally {
      await ctx.buildah.run(["umount", container], { log: "quiet" }).catch(() => undefined);
    }
  } finally {
    await ctx.buildah.run(["rm", container], { log: "quiet" }).catch(() => undefined);
  }
  const ref = `${NATS_REPOSITORY}:${version}`;
  await ctx.buildah.run(["tag", local, `localhost/${ref}`], { log: "quiet" });
  const info = (await ctx.buildah.inspect(local))!;
  const archive = await writeArchive(ctx, info.id, normalizeImageReference(ref), `${NATS_REPOSITORY}-${version}`);
  return { ref, archive, id: info.id, layers: info.layers };
}
