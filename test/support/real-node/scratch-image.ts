/**
 * Single-layer images of static binaries (the pod sandbox's pause, the tests' pod server) written
 * as a docker-archive that `ctr images import` reads — no builder, no base image: the node has no
 * registry, so the images it runs are made here and imported into its containerd.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { normalizeImageReference } from "../../../src/provision/image-ref.ts";

/** What goes into a scratch image. */
export interface ScratchImage {
  /** Reference, e.g. `tinyhost-pause:3.10` (written normalised: `docker.io/library/…`). */
  ref: string;
  /** Files by absolute path in the image → path on this machine (copied with mode 0755). */
  files: Record<string, string>;
  /** The image's ENTRYPOINT. */
  entrypoint: string[];
  /** The image's USER (numeric). */
  user: string;
}

function run(cmd: string[]): void {
  const r = Bun.spawnSync(cmd, { stdout: "ignore", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${cmd.slice(0, 2).join(" ")} failed: ${r.stderr.toString().trim()}`);
}

async function sha256File(path: string): Promise<string> {
  const h = new Bun.CryptoHasher("sha256");
  h.update(await Bun.file(path).arrayBuffer());
  return h.digest("hex");
}

/**
 * Writes `image` as a docker-archive at `archive`.
 * @returns the normalised reference containerd stores it under.
 * @throws Error naming tar when the layer or the archive cannot be written.
 */
export async function writeScratchImage(image: ScratchImage, archive: string): Promise<string> {
  const ref = normalizeImageReference(image.ref);
  const work = mkdtempSync(join(dirname(archive), ".scratch-"));
  try {
    const rootfs = join(work, "rootfs");
    for (const [to, from] of Object.entries(image.files)) {
      const dest = join(rootfs, to);
      mkdirSync(dirname(dest), { recursive: true });
      copyFileSync(from, dest);
      Bun.spawnSync(["chmod", "0755", dest]);
    }
    const out = join(work, "out");
    mkdirSync(out);
    const layerTmp = join(work, "layer.tar");
    run(["tar", "--owner=0", "--group=0", "--numeric-owner", "--mtime=@0", "--sort=name", "-C", rootfs, "-cf", layerTmp, "."]);
    const diffId = await sha256File(layerTmp);
    mkdirSync(join(out, diffId));
    copyFileSync(layerTmp, join(out, diffId, "layer.tar"));
    const config = JSON.stringify({
      architecture: "amd64",
      os: "linux",
      config: { Entrypoint: image.entrypoint, User: image.user, Env: ["PATH=/"] },
      rootfs: { type: "layers", diff_ids: [`sha256:${diffId}`] },
      history: [{ created_by: "test/support/real-node/scratch-image.ts", created: "1970-01-01T00:00:00Z" }],
      created: "1970-01-01T00:00:00Z",
    });
    const configId = new Bun.CryptoHasher("sha256").update(config).digest("hex");
    writeFileSync(join(out, `${configId}.json`), config);
    writeFileSync(join(out, "manifest.json"), JSON.stringify([{ Config: `${configId}.json`, RepoTags: [ref], Layers: [`${diffId}/layer.tar`] }]));
    run(["tar", "-C", out, "-cf", archive, "."]);
    if (statSync(archive).size === 0) throw new Error(`tar wrote an empty ${archive}`);
    return ref;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
