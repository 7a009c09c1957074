/**
 * The Go peer module's image (./go-peer.Containerfile): the peer binary scripts/build-go-tools.sh
 * builds (static, CGO off) at /manager on an empty base, tagged with the Go SDK version it is
 * built on (test/go/go.mod): `tinyhost-go-peer:<sdk>`. A chart or a test runs it like any Go
 * module's image, so Go and tinyhost pods can share a flow.
 */
import { linkSync, copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { builtGoTool, goTool } from "../../test/support/go-tools.ts";
import { normalizeImageReference } from "../../src/provision/image-ref.ts";
import { ROOT, writeArchive, type BuildContext, type BuiltImage } from "./build-context.ts";
import { imageCacheDir } from "./cache.ts";

/** Repository of the Go peer image. */
export const GO_PEER_REPOSITORY = "tinyhost-go-peer";

const RECIPE = join(import.meta.dir, "go-peer.Containerfile");

/**
 * The Go SDK version test/go/go.mod requires, without the `v`.
 * @throws Error when go.mod does not require github.com/tiny-systems/module.
 */
export function goSdkVersion(goMod = readFileSync(join(ROOT, "test/go/go.mod"), "utf8")): string {
  const v = /^\s*(?:require\s+)?github\.com\/tiny-systems\/module\s+v(\S+)/m.exec(goMod)?.[1];
  if (!v) throw new Error("test/go/go.mod does not require github.com/tiny-systems/module");
  return v;
}

/**
 * Builds (or finds) the peer binary, builds its image and writes
 * `dist/images/tinyhost-go-peer-<sdk>.tar`.
 * @throws Error when the Go tools cannot be built; CommandError when the image build fails.
 */
export async function buildGoPeerImage(ctx: BuildContext): Promise<BuiltImage> {
  const binary = builtGoTool("peer") ?? (await goTool("peer"));
  const ref = `${GO_PEER_REPOSITORY}:${goSdkVersion()}`;
  const local = `localhost/${ref}`;
  const context = mkdtempSync(join(imageCacheDir(), ".go-peer-"));
  try {
    try {
      linkSync(binary, join(context, "manager"));
    } catch {
      copyFileSync(binary, join(context, "manager"));
    }
    await ctx.buildah.bud({ file: RECIPE, context, tag: local });
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
  const info = (await ctx.buildah.inspect(local))!;
  const archive = await writeArchive(ctx, info.id, normalizeImageReference(ref), `${GO_PEER_REPOSITORY}-${goSdkVersion()}`);
  return { ref, archive, id: info.id, layers: info.layers };
}
