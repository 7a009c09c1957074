/**
 * buildah (Debian package `buildah`), the image builder behind `npm run image`: it builds the
 * project's own Dockerfile with no daemon and no registry. Its image store is the project's own
 * (`<image cache>/storage`), so the base images and the layer cache (`--layers`) outlive a run and
 * nothing touches a user's own buildah or podman store. The store uses the overlay driver, or vfs
 * (full copies, slower, more disk) where overlay cannot mount; `TINYHOST_BUILDAH_DRIVER` forces one.
 * Builds run with chroot isolation (no OCI runtime, no user namespace: works inside containers and
 * VMs without extra privileges beyond root) and the host's network (the Dockerfile's `bun install`
 * reaches the npm registry).
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ensureDebianBinary } from "../../test/support/debian-package.ts";
import { imageCacheDir } from "./cache.ts";
import { runCommand, type LogSink } from "./run-command.ts";

/** One image of the store, as `buildah inspect --type image` reports it (the fields we read). */
export interface ImageInfo {
  /** Image id (sha256 hex of its config). */
  id: string;
  /** The OCI image config. */
  config: {
    User?: string;
    Env?: string[];
    Entrypoint?: string[] | null;
    Cmd?: string[] | null;
    WorkingDir?: string;
    ExposedPorts?: Record<string, unknown>;
  };
  /** Layer digests, base first. */
  layers: string[];
}

/** A buildah bound to the project's store. */
export interface Buildah {
  /** Store root (`--root`). */
  readonly root: string;
  /** Store run root (`--runroot`): locks and mount state. */
  readonly runroot: string;
  /** Storage driver in use: `overlay` or `vfs`. */
  readonly driver: string;
  /** Runs `buildah <global flags> <args>`; returns stdout when `capture`. @throws CommandError */
  run(args: readonly string[], options?: { log?: LogSink | "quiet"; capture?: boolean }): Promise<string>;
  /** The image named `ref` in the store, or undefined. */
  inspect(ref: string): Promise<ImageInfo | undefined>;
  /** Builds a Dockerfile (see {@link BudOptions}); resolves to the new image's id. @throws CommandError */
  bud(options: BudOptions): Promise<string>;
}

/** One `buildah bud`: always no pull, chroot isolation, the layer cache, and no container left behind on failure. */
export interface BudOptions {
  /** The Dockerfile / Containerfile. */
  file: string;
  /** The build context directory. */
  context: string;
  /** Name to tag the result with. */
  tag: string;
  /** `--build-arg` values. */
  buildArgs?: Record<string, string>;
  /** Give RUN steps the host's network (default: none needed). */
  hostNetwork?: boolean;
  /** Extra `--volume src:dst[:opts]` mounts for RUN steps (never committed to a layer). */
  volumes?: string[];
}

/**
 * Opens the project's buildah store, installing buildah from Debian's packages when missing.
 * @throws Error when not root (buildah's chroot isolation and overlay mounts need it), or when
 *   buildah is missing and cannot be installed.
 */
export async function openBuildah(log: LogSink = "stderr"): Promise<Buildah> {
  if (process.getuid?.() !== 0) {
    throw new Error("npm run image needs root: buildah mounts image layers and runs the build steps in a chroot (run it with sudo)");
  }
  const binary = ensureDebianBinary("buildah");
  const root = join(imageCacheDir(), "storage");
  const runroot = process.env.TINYHOST_BUILDAH_RUNROOT ?? "/run/tinyhost/buildah";
  mkdirSync(root, { recursive: true });
  mkdirSync(runroot, { recursive: true });
  const globals = (driver: string) => [binary, "--root", root, "--runroot", runroot, "--storage-driver", driver];
  const driver = await chooseDriver(root, (d) => runCommand([...globals(d), "images", "-q"], { log: "quiet", capture: true }));
  const run: Buildah["run"] = (args, options = {}) => runCommand([...globals(driver), ...args], { log: options.log ?? log, capture: options.capture });
  return {
    root,
    runroot,
    driver,
    run,
    async bud(o) {
      const iidfile = join(runroot, `iid-${process.pid}-${Date.now()}`);
      await run([
        "bud",
        "--layers",
        "--pull=never",
        "--force-rm",
        "--isolation",
        "chroot",
        ...(o.hostNetwork ? ["--network", "host"] : []),
        ...Object.entries(o.buildArgs ?? {}).flatMap(([k, v]) => ["--build-arg", `${k}=${v}`]),
        ...(o.volumes ?? []).flatMap((v) => ["--volume", v]),
        "--iidfile",
        iidfile,
        "-f",
        o.file,
        "-t",
        o.tag,
        o.context,
      ]);
      try {
        return readFileSync(iidfile, "utf8")
          .trim()
          .replace(/^sha256:/, "");
      } finally {
        rmSync(iidfile, { force: true });
      }
    },
    async inspect(ref) {
      let text: string;
      try {
        text = await run(["inspect", "--type", "image", ref], { log: "quiet", capture: true });
      } catch {
        return undefined;
      }
      const raw = JSON.parse(text) as { FromImageID: string; OCIv1?: { config?: ImageInfo["config"]; rootfs?: { diff_ids?: string[] } } };
      return { id: raw.FromImageID, config: raw.OCIv1?.config ?? {}, layers: raw.OCIv1?.rootfs?.diff_ids ?? [] };
    },
  };
}

/**
 * The storage driver: `TINYHOST_BUILDAH_DRIVER`, else the one the store was created with (a
 * store cannot change driver), else overlay when `probe("overlay")` succeeds, else vfs.
 * @param probe - opens the store with a driver; rejects when the driver cannot work here.
 */
export async function chooseDriver(root: string, probe: (driver: string) => Promise<unknown>): Promise<string> {
  const forced = process.env.TINYHOST_BUILDAH_DRIVER;
  if (forced) {
    if (forced !== "overlay" && forced !== "vfs") throw new Error(`TINYHOST_BUILDAH_DRIVER must be overlay or vfs, got ${JSON.stringify(forced)}`);
    return forced;
  }
  for (const driver of ["vfs", "overlay"]) if (existsSync(join(root, driver))) return driver;
  try {
    await probe("overlay");
    return "overlay";
  } catch {
    return "vfs";
  }
}
