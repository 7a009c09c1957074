/**
 * The local stand-in for the Dockerfile's `BASE_IMAGE` (`debian:<12.x>-slim`): a Debian root
 * filesystem made by mmdebstrap (Debian package) from the machine's own apt mirror, slimmed the
 * way Debian's `-slim` images are (minbase: Essential packages and apt; no docs but copyright
 * files, no man pages, info pages or translations, no apt caches, and the same dpkg and apt
 * settings kept for later `apt-get install`s), merged /usr, no device nodes, empty /etc/hostname and /etc/resolv.conf
 * (the runtime mounts its own). Cached twice: the rootfs tarball under the image cache dir and
 * the image in buildah's store, both named by a key of their inputs (suite, architecture, apt
 * sources, this recipe), so a second run finds them and changed inputs build anew. A cold build
 * is dominated by dpkg unpacking ~90 packages (docs/testing.md "Images").
 */
import { existsSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureDebianBinary } from "../../test/support/debian-package.ts";
import { hostDebEntries } from "./apt-sources.ts";
import type { Buildah } from "./buildah.ts";
import { contentKey, imageCacheDir } from "./cache.ts";
import { logLine, runCommand, type LogSink } from "./run-command.ts";

/** Repository of the local Debian base images in buildah's store. */
export const DEBIAN_BASE_REPOSITORY = "localhost/tinyhost-base/debian";

/** Debian release code names by major version (Debian's release history). */
const SUITES: Readonly<Record<string, string>> = { "11": "bullseye", "12": "bookworm", "13": "trixie" };

/**
 * The Debian suite a `debian:<major>[.<minor>][-slim]` reference names.
 * @throws Error quoting the reference when it is not a `debian:` image of a known major version.
 */
export function debianSuite(image: string): string {
  const m = /^(?:docker\.io\/(?:library\/)?)?debian:(\d+)(?:\.\d+)*(?:-slim)?$/.exec(image);
  const suite = m ? SUITES[m[1]!] : undefined;
  if (!suite) throw new Error(`BASE_IMAGE default ${JSON.stringify(image)} is not debian:<major>[.<minor>]-slim of Debian ${Object.keys(SUITES).join(", ")}`);
  return suite;
}

/** What Debian's -slim images leave out, as dpkg options (kept in the image's dpkg config). */
export const SLIM_DPKG_OPTIONS: readonly string[] = [
  "path-exclude=/usr/share/doc/*",
  "path-include=/usr/share/doc/*/copyright",
  "path-exclude=/usr/share/man/*",
  "path-exclude=/usr/share/info/*",
  "path-exclude=/usr/share/locale/*",
  "path-exclude=/usr/share/lintian/*",
];

/**
 * apt settings Debian's container images carry (kept in the image's apt config, so a later
 * `apt-get install` in a build on this base stays small too): no package caches (`*.bin`), .deb
 * files removed after each install and update, no translation indexes, indexes kept compressed,
 * suggested packages not kept from autoremove.
 */
export const SLIM_APT_OPTIONS: readonly string[] = [
  'Dir::Cache::pkgcache ""; Dir::Cache::srcpkgcache "";',
  'DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };',
  'APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };',
  'Acquire::Languages "none";',
  'Acquire::GzipIndexes "true";',
  'Apt::AutoRemove::SuggestsImportant "false";',
];

/** The mmdebstrap arguments before the suite, output and sources (part of the cache key). */
export function mmdebstrapOptions(): string[] {
  return [
    "--variant=minbase",
    "--mode=root",
    "--format=tar",
    "--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr",
    "--skip=output/dev",
    ...SLIM_DPKG_OPTIONS.map((o) => `--dpkgopt=${o}`),
    ...SLIM_APT_OPTIONS.map((o) => `--aptopt=${o}`),
    `--customize-hook=: > "$1/etc/hostname"; : > "$1/etc/resolv.conf"`,
  ];
}

/** A base image made ready: its reference and whether this call built it. */
export interface BaseImage {
  /** Reference in buildah's store, e.g. `localhost/tinyhost-base/debian:bookworm-slim-<key>`. */
  ref: string;
  /** True when built by this call (false: found in the cache). */
  built: boolean;
}

function hostArch(): string {
  return Bun.spawnSync(["dpkg", "--print-architecture"]).stdout.toString().trim() || process.arch;
}

/**
 * The Debian base for `suite`, from buildah's store, else imported from the cached rootfs
 * tarball, else built with mmdebstrap (installed from Debian's packages when missing).
 * @throws CommandError when mmdebstrap or buildah fails (its last output lines quoted).
 */
export async function ensureDebianBase(buildah: Buildah, suite: string, log: LogSink): Promise<BaseImage> {
  const sources = hostDebEntries(suite);
  const options = mmdebstrapOptions();
  const arch = hostArch();
  const key = contentKey(["debian-base/1", suite, arch, ...options, ...sources]);
  const ref = `${DEBIAN_BASE_REPOSITORY}:${suite}-slim-${key}`;
  if (await buildah.inspect(ref)) return { ref, built: false };

  const cache = imageCacheDir();
  const tarball = join(cache, `debian-${suite}-slim-${key}.tar`);
  if (!existsSync(tarball)) {
    const mmdebstrap = ensureDebianBinary("mmdebstrap");
    const work = mkdtempSync(join(cache, ".debian-"));
    try {
      const list = join(work, "sources.list");
      writeFileSync(list, sources.map((s) => `${s}\n`).join(""));
      const t0 = performance.now();
      logLine(log, `image: building the Debian ${suite} base with mmdebstrap (${sources.length} apt sources from this machine)`);
      await runCommand([mmdebstrap, ...options, suite, join(work, "rootfs.tar"), ...(sources.length ? [list] : [])], { log });
      renameSync(join(work, "rootfs.tar"), tarball);
      // Tarballs of earlier inputs for this suite are not read again (their images, if any, stay in the store).
      for (const name of readdirSync(cache)) {
        if (name.startsWith(`debian-${suite}-slim-`) && name.endsWith(".tar") && join(cache, name) !== tarball) rmSync(join(cache, name), { force: true });
      }
      logLine(log, `image: Debian ${suite} rootfs built in ${((performance.now() - t0) / 1000).toFixed(1)} s (${tarball})`);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  const container = (await buildah.run(["from", "--pull=never", "scratch"], { capture: true })).trim();
  try {
    await buildah.run(["add", container, tarball, "/"]);
    await buildah.run([
      "config",
      "--os",
      "linux",
      "--arch",
      arch,
      "--env",
      "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      "--cmd",
      '["bash"]',
      container,
    ]);
    await buildah.run(["commit", "--quiet", container, ref], { log: "quiet" });
  } finally {
    await buildah.run(["rm", container], { log: "quiet" }).catch(() => undefined);
  }
  return { ref, built: true };
}
