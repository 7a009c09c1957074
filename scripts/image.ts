/**
 * `npm run image`: builds tinyhost's image from the Dockerfile without pulling anything (local
 * Debian and Bun base images stand in for the public ones; scripts/image/), writes it as a
 * docker-archive, and loads it into a containerd when asked.
 *
 *   npm run image                                  # tinyhost:<version>
 *   npm run image -- --tag 0.1.1-dev.1             # another tag (e.g. for a rolling update)
 *   npm run image -- nats otel-collector go-peer   # the broker, the collector, the Go peer module
 *   npm run image -- all --load /run/containerd/containerd.sock
 *
 * Prints per image `image: <ref>` and `archive: <path>` on stdout (progress and timings on
 * stderr). `--load <socket>` (or TINYHOST_CONTAINERD_ADDRESS) imports each archive into that
 * containerd's `k8s.io` namespace, where the kubelet finds it (`imagePullPolicy: IfNotPresent`).
 * Needs root (buildah). Exit 1 with one line naming the failing step.
 */
import { FlagError, parseFlags } from "../src/cli/flags.ts";
import { openBuildContext, type BuildContext, type BuiltImage } from "./image/build-context.ts";
import { CONTAINERD_ADDRESS_ENV, CRI_NAMESPACE, importImage } from "./image/containerd.ts";
import { buildGoPeerImage, buildOtelCollectorImage } from "./image/go-tool-images.ts";
import { buildModuleImage } from "./image/module-image.ts";
import { buildNatsImage } from "./image/nats-image.ts";
import { logLine } from "./image/run-command.ts";

/** The images `npm run image` can build, by the name given on the command line. */
export const IMAGE_NAMES = ["tinyhost", "nats", "otel-collector", "go-peer"] as const;
/** One of {@link IMAGE_NAMES}. */
export type ImageName = (typeof IMAGE_NAMES)[number];

const FLAGS = {
  tag: { type: "string", valueName: "a tag" },
  load: { type: "string", valueName: "a containerd socket" },
  namespace: { type: "string", valueName: "a containerd namespace" },
  help: { type: "boolean", short: "h" },
} as const;

const USAGE = `usage: npm run image -- [tinyhost|nats|otel-collector|go-peer|all]... [--tag <tag>] [--load <containerd socket>] [--namespace <ns>]
  tinyhost        tinyhost's image from the Dockerfile (default), tagged tinyhost:<package version>
  nats            NATS from Debian's nats-server on the local Debian base (tinyhost provision --nats-image)
  otel-collector  the platform's trace collector from the Go module proxy (tinyhost provision --otel-image)
  go-peer         the Go peer module (test/go/peer) at /manager
  --tag           tag of the tinyhost image (default: package.json's version)
  --load          import each image into this containerd (default: $${CONTAINERD_ADDRESS_ENV}, else none)
  --namespace     containerd namespace for --load (default ${CRI_NAMESPACE}, the kubelet's)`;

/** The parsed command line. */
export interface ImageCommand {
  names: ImageName[];
  tag?: string;
  load?: string;
  namespace: string;
  help: boolean;
}

/**
 * Parses the arguments after `npm run image --`.
 * @throws FlagError for an unknown flag or image name.
 */
export function parseImageCommand(args: readonly string[], env: Record<string, string | undefined> = process.env): ImageCommand {
  const { values, positionals } = parseFlags(args, FLAGS, { positionals: true });
  const names = new Set<ImageName>();
  for (const p of positionals) {
    if (p === "all") IMAGE_NAMES.forEach((n) => names.add(n));
    else if ((IMAGE_NAMES as readonly string[]).includes(p)) names.add(p as ImageName);
    else throw new FlagError(`unknown image ${JSON.stringify(p)} (expected ${IMAGE_NAMES.join(", ")} or all)`);
  }
  const load = values.load ?? (env[CONTAINERD_ADDRESS_ENV] || undefined);
  return {
    names: names.size ? IMAGE_NAMES.filter((n) => names.has(n)) : ["tinyhost"],
    ...(values.tag !== undefined ? { tag: values.tag } : {}),
    ...(load !== undefined ? { load } : {}),
    namespace: values.namespace ?? CRI_NAMESPACE,
    help: values.help ?? false,
  };
}

/** Builds one named image. */
export function buildImage(ctx: BuildContext, name: ImageName, tag?: string): Promise<BuiltImage> {
  if (name === "nats") return buildNatsImage(ctx);
  if (name === "go-peer") return buildGoPeerImage(ctx);
  if (name === "otel-collector") return buildOtelCollectorImage(ctx);
  return buildModuleImage(ctx, tag !== undefined ? { tag } : {});
}

if (import.meta.main) {
  let command: ImageCommand;
  try {
    command = parseImageCommand(process.argv.slice(2));
  } catch (e) {
    console.error(`image: ${(e as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  if (command.help) {
    console.log(USAGE);
    process.exit(0);
  }
  try {
    const ctx = await openBuildContext("stderr");
    for (const name of command.names) {
      const t0 = performance.now();
      const image = await buildImage(ctx, name, command.tag);
      logLine("stderr", `image: ${image.ref} ready in ${((performance.now() - t0) / 1000).toFixed(1)} s (${ctx.buildah.driver} store ${ctx.buildah.root})`);
      console.log(`image: ${image.ref}`);
      console.log(`archive: ${image.archive}`);
      if (command.load) {
        const t1 = performance.now();
        await importImage(image.archive, { address: command.load, namespace: command.namespace });
        console.log(`loaded: ${image.ref} into ${command.load} (namespace ${command.namespace}) in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
      }
    }
  } catch (e) {
    console.error(`image: ${(e as Error).message}`);
    process.exit(1);
  }
}
