/**
 * What every image of `npm run image` is built with: the project's buildah store, the log sink,
 * and the local Debian base (made once per run, on first need), plus the result every image
 * build returns and the docker-archive it is written to.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { openBuildah, type Buildah } from "./buildah.ts";
import { ensureDebianBase, type BaseImage } from "./debian-base.ts";
import type { LogSink } from "./run-command.ts";

/** The repository root (the Dockerfile's build context). */
export const ROOT = resolve(import.meta.dir, "../..");

/** Where image archives are written: `dist/images/<name>-<tag>.tar`. */
export const ARCHIVE_DIR = join(ROOT, "dist", "images");

/** One run's builder. */
export interface BuildContext {
  readonly buildah: Buildah;
  readonly log: LogSink;
  /** The local Debian base of `suite` (built or found once per run). */
  debianBase(suite: string): Promise<BaseImage>;
}

/** Opens the builder (see {@link openBuildah} for what it throws). */
export async function openBuildContext(log: LogSink = "stderr"): Promise<BuildContext> {
  const buildah = await openBuildah(log);
  const bases = new Map<string, Promise<BaseImage>>();
  return {
    buildah,
    log,
    debianBase(suite) {
      let base = bases.get(suite);
      if (!base) bases.set(suite, (base = ensureDebianBase(buildah, suite, log)));
      return base;
    },
  };
}

/** An image built and written as a docker-archive. */
export interface BuiltImage {
  /**
   * The reference a pod spec, `tinyhost provision --image` or `ctr` names it by, e.g.
   * `tinyhost:0.1.0` (containerd stores it as `docker.io/library/tinyhost:0.1.0`).
   */
  ref: string;
  /** The docker-archive tar (`ctr images import` and `docker load` read it). */
  archive: string;
  /** Image id in buildah's store (sha256 hex of its config). */
  id: string;
  /** Layer diff ids, base first. */
  layers: string[];
}

/**
 * Writes image `id` to `dist/images/<file>.tar` as a docker-archive tagged `ref` (only that tag),
 * unless that file already holds this id (recorded beside it in `<file>.tar.id`).
 * @returns the archive path.
 * @throws CommandError when buildah cannot write it.
 */
export async function writeArchive(ctx: BuildContext, id: string, ref: string, file: string): Promise<string> {
  mkdirSync(ARCHIVE_DIR, { recursive: true });
  const path = join(ARCHIVE_DIR, `${file}.tar`);
  const record = `${path}.id`;
  const recorded = `${id} ${ref}`;
  if (existsSync(path) && existsSync(record) && readFileSync(record, "utf8").trim() === recorded) return path;
  // Per process: two builds writing the same archive at once each finish their own file, then rename.
  const partial = `${path}.${process.pid}.partial`;
  rmSync(partial, { force: true });
  rmSync(record, { force: true });
  // By id, not by name: the archive then carries `ref` alone, not the store's localhost/ name too.
  await ctx.buildah.run(["push", "--quiet", id, `docker-archive:${partial}:${ref}`], { log: "quiet" });
  renameSync(partial, path);
  writeFileSync(record, `${recorded}\n`);
  return path;
}
