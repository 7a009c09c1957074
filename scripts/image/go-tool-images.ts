/**
 * Images of Go programs the test bed builds (scripts/build-go-tools.sh: static binaries, CGO off,
 * from the Go module proxy), each from a Containerfile beside this file on an empty base:
 *
 * - `tinyhost-go-peer:<Go SDK version>` — the Go peer module (test/go/peer) at /manager, laid out
 *   as Go modules' images are (the chart runs `command: [/manager]`), uid 65532, so Go and tinyhost
 *   pods can share a flow.
 * - `tinyhost-otel-collector:<version>` — the platform's own trace collector
 *   (github.com/tiny-systems/otel-collector at the version test/go/go.mod pins; the Go tool
 *   test/go/otel-collector), laid out as its public image is (`/app run`, `/config.yaml`), uid
 *   10001: `tinyhost provision --otel-image` runs it where ghcr.io is out of reach.
 */
import { copyFileSync, linkSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { builtGoTool, goTool } from "../../test/support/go-tools.ts";
import { normalizeImageReference } from "../../src/provision/image-ref.ts";
import { ROOT, writeArchive, type BuildContext, type BuiltImage } from "./build-context.ts";
import { imageCacheDir } from "./cache.ts";

/** Repository of the Go peer image. */
export const GO_PEER_REPOSITORY = "tinyhost-go-peer";
/** Repository of the trace collector image. */
export const OTEL_COLLECTOR_REPOSITORY = "tinyhost-otel-collector";

/**
 * The version (without `v`) test/go/go.mod requires of Go module `module`.
 * @throws Error naming the module when go.mod does not require it.
 */
export function goModuleVersion(module: string, goMod = readFileSync(join(ROOT, "test/go/go.mod"), "utf8")): string {
  const escaped = module.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  const v = new RegExp(`^\\s*(?:require\\s+)?${escaped}\\s+v(\\S+)`, "m").exec(goMod)?.[1];
  if (!v) throw new Error(`test/go/go.mod does not require ${module}`);
  return v;
}

/** One Go tool image: the tool's binary copied into a context as `binaryName`, plus files beside the recipe. */
interface GoToolImage {
  tool: string;
  recipe: string;
  binaryName: string;
  /** Files next to this source file copied into the context under the same name. */
  files?: string[];
  repository: string;
  tag: string;
}

function placeFile(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}

/**
 * Builds one Go tool image (the tool from the cache, else built with every Go tool) and writes
 * `dist/images/<repository>-<tag>.tar`.
 * @throws Error when the Go tools cannot be built; CommandError when the image build fails.
 */
async function buildGoToolImage(ctx: BuildContext, image: GoToolImage): Promise<BuiltImage> {
  const binary = builtGoTool(image.tool) ?? (await goTool(image.tool));
  const ref = `${image.repository}:${image.tag}`;
  const local = `localhost/${ref}`;
  const context = mkdtempSync(join(imageCacheDir(), `.${image.tool}-`));
  try {
    placeFile(binary, join(context, image.binaryName));
    for (const f of image.files ?? []) copyFileSync(join(import.meta.dir, f), join(context, f));
    await ctx.buildah.bud({ file: join(import.meta.dir, image.recipe), context, tag: local });
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
  const info = (await ctx.buildah.inspect(local))!;
  const archive = await writeArchive(ctx, info.id, normalizeImageReference(ref), `${image.repository}-${image.tag}`);
  return { ref, archive, id: info.id, layers: info.layers };
}

/** The Go peer module's image (./go-peer.Containerfile). See {@link buildGoToolImage} for errors. */
export function buildGoPeerImage(ctx: BuildContext): Promise<BuiltImage> {
  const tag = goModuleVersion("github.com/tiny-systems/module");
  return buildGoToolImage(ctx, { tool: "peer", recipe: "go-peer.Containerfile", binaryName: "manager", repository: GO_PEER_REPOSITORY, tag });
}

/** The trace collector's image (./otel-collector.Containerfile). See {@link buildGoToolImage} for errors. */
export function buildOtelCollectorImage(ctx: BuildContext): Promise<BuiltImage> {
  const tag = goModuleVersion("github.com/tiny-systems/otel-collector");
  return buildGoToolImage(ctx, {
    tool: "otel-collector",
    recipe: "otel-collector.Containerfile",
    binaryName: "app",
    files: ["otel-collector.config.yaml"],
    repository: OTEL_COLLECTOR_REPOSITORY,
    tag,
  });
}
