/**
 * tinyhost's own image, built from the repository's Dockerfile as it is — both stages, every
 * instruction — by buildah, with the two base-image build arguments pointed at the local
 * stand-ins (./debian-base.ts, ./bun-base.ts) instead of the public `oven/bun` and `debian`
 * images, and nothing pulled. buildah's layer cache (`--layers`) makes a second build with the
 * same inputs reuse every step, and one after a source change reuse the locked `bun install`.
 *
 * The Dockerfile's `bun install` fetches from the npm registry (`--network host`). Where this
 * machine's Node/Bun trust an extra CA (`NODE_EXTRA_CA_CERTS`, e.g. a TLS-inspecting proxy in
 * front of the registry), that CA is handed to the install step only, as a read-only mount and a
 * bunfig `install.cafile` mounted at `/root/.bunfig.toml` (Bun's global config): build-time mounts
 * are not part of any layer, so neither reaches an image.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { normalizeImageReference, parseImageReference } from "../../src/provision/image-ref.ts";
import { ensureBunBase } from "./bun-base.ts";
import { ROOT, writeArchive, type BuildContext, type BuiltImage } from "./build-context.ts";
import { imageCacheDir } from "./cache.ts";
import { debianSuite } from "./debian-base.ts";
import { globalArgs, parseInstructions } from "./dockerfile.ts";

/** The Dockerfile `npm run image` builds. */
export const DOCKERFILE = join(ROOT, "Dockerfile");
/** Repository of tinyhost's image: the default image of `tinyhost provision` is `tinyhost:<version>`. */
export const MODULE_REPOSITORY = "tinyhost";
/** Build argument naming the build stage's Bun image. */
export const BUN_IMAGE_ARG = "BUN_IMAGE";
/** Build argument naming the final stage's base image. */
export const BASE_IMAGE_ARG = "BASE_IMAGE";

/** Where the build's extra CA is mounted inside the `bun install` step. */
const BUILD_CA_PATH = "/run/tinyhost-build/extra-ca.crt";

/**
 * The Dockerfile's defaults for {@link BUN_IMAGE_ARG} and {@link BASE_IMAGE_ARG}, and what a
 * local stand-in must be: the Bun version (the tag's `<version>-debian`) and the Debian suite.
 * @throws Error when an argument is missing or its default is not the expected form.
 */
export function baseImageDefaults(text = readFileSync(DOCKERFILE, "utf8")): { bunImage: string; baseImage: string; bunVersion: string; suite: string } {
  const args = globalArgs(parseInstructions(text));
  const bunImage = args.get(BUN_IMAGE_ARG);
  const baseImage = args.get(BASE_IMAGE_ARG);
  if (!bunImage || !baseImage) throw new Error(`the Dockerfile must declare ARG ${BUN_IMAGE_ARG}=… and ARG ${BASE_IMAGE_ARG}=… before its first FROM`);
  const bunVersion = /^(?:docker\.io\/)?oven\/bun:(\d+\.\d+\.\d+)-debian$/.exec(bunImage)?.[1];
  if (!bunVersion) throw new Error(`${BUN_IMAGE_ARG} default ${JSON.stringify(bunImage)} is not oven/bun:<x.y.z>-debian`);
  return { bunImage, baseImage, bunVersion, suite: debianSuite(baseImage) };
}

/** Build-time mounts that hand this machine's extra CA (if any) to the build's `bun install`. */
function buildTrustVolumes(): string[] {
  const ca = process.env.NODE_EXTRA_CA_CERTS;
  if (!ca || !existsSync(ca)) return [];
  const dir = join(imageCacheDir(), "build-trust");
  mkdirSync(dir, { recursive: true });
  const bunfig = join(dir, "bunfig.toml");
  writeFileSync(bunfig, `# Written by scripts/image/module-image.ts: the build machine's extra CA for bun install.\n[install]\ncafile = "${BUILD_CA_PATH}"\n`);
  return [`${ca}:${BUILD_CA_PATH}:ro`, `${bunfig}:/root/.bunfig.toml:ro`];
}

/** Options of {@link buildModuleImage}. */
export interface ModuleImageOptions {
  /** Image tag (default package.json's version, the tag `tinyhost provision` uses by default). */
  tag?: string;
  /**
   * Build context (default the repository): a copy of it with other files in components/ builds a
   * module with those components (test/integration/real-redeploy.test.ts).
   */
  context?: string;
}

/**
 * Builds tinyhost's image from the Dockerfile and writes `dist/images/tinyhost-<tag>.tar`.
 * @throws Error for a tag that is not a valid image tag, or from the base images; CommandError
 *   when the build fails (buildah's last output lines quoted).
 */
export async function buildModuleImage(ctx: BuildContext, options: ModuleImageOptions = {}): Promise<BuiltImage> {
  const tag = options.tag ?? pkg.version;
  const ref = `${MODULE_REPOSITORY}:${tag}`;
  if (parseImageReference(ref).tag !== tag) throw new Error(`--tag ${JSON.stringify(tag)} is not an image tag ([A-Za-z0-9_][A-Za-z0-9_.-]{0,127})`);
  const defaults = baseImageDefaults();
  const debian = await ctx.debianBase(defaults.suite);
  const bun = await ensureBunBase(ctx.buildah, defaults.bunVersion, debian);
  const local = `localhost/${MODULE_REPOSITORY}:${tag}`;
  await ctx.buildah.bud({
    file: DOCKERFILE,
    context: options.context ?? ROOT,
    tag: local,
    buildArgs: { [BUN_IMAGE_ARG]: bun.ref, [BASE_IMAGE_ARG]: debian.ref },
    hostNetwork: true,
    volumes: buildTrustVolumes(),
  });
  const info = await ctx.buildah.inspect(local);
  if (!info) throw new Error(`buildah reported success but ${local} is not in the store`);
  const archive = await writeArchive(ctx, info.id, normalizeImageReference(ref), `${MODULE_REPOSITORY}-${tag}`);
  return { ref, archive, id: info.id, layers: info.layers };
}
