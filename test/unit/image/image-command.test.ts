/** `npm run image`'s command line and the small rules its builders follow (scripts/image.ts, scripts/image/). */
import { describe, expect, test } from "bun:test";
import { parseImageCommand } from "../../../scripts/image.ts";
import { chooseDriver } from "../../../scripts/image/buildah.ts";
import { contentKey } from "../../../scripts/image/cache.ts";
import { debianSuite } from "../../../scripts/image/debian-base.ts";
import { goModuleVersion } from "../../../scripts/image/go-tool-images.ts";
import { dpkgVersion, natsVersion } from "../../../scripts/image/nats-image.ts";
import { FlagError } from "../../../src/cli/flags.ts";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

describe("parseImageCommand", () => {
  test("builds tinyhost by default, names in a fixed order, `all` for every image", () => {
    expect(parseImageCommand([], {})).toEqual({ names: ["tinyhost"], namespace: "k8s.io", help: false });
    expect(parseImageCommand(["go-peer", "nats", "nats"], {}).names).toEqual(["nats", "go-peer"]);
    expect(parseImageCommand(["all"], {}).names).toEqual(["tinyhost", "nats", "otel-collector", "go-peer"]);
  });

  test("--load, else TINYHOST_CONTAINERD_ADDRESS; --tag and --namespace", () => {
    expect(parseImageCommand(["--tag", "0.2.0-dev.1", "--load", "/s.sock", "--namespace", "ns"], {})).toMatchObject({
      tag: "0.2.0-dev.1",
      load: "/s.sock",
      namespace: "ns",
    });
    expect(parseImageCommand([], { TINYHOST_CONTAINERD_ADDRESS: "/env.sock" }).load).toBe("/env.sock");
    expect(parseImageCommand(["--load", "/flag.sock"], { TINYHOST_CONTAINERD_ADDRESS: "/env.sock" }).load).toBe("/flag.sock");
    expect(parseImageCommand([], { TINYHOST_CONTAINERD_ADDRESS: "" }).load).toBeUndefined();
  });

  test("refuses unknown images and flags, and flags without values", () => {
    expect(() => parseImageCommand(["redis"], {})).toThrow('unknown image "redis"');
    expect(() => parseImageCommand(["--bogus"], {})).toThrow(FlagError);
    expect(() => parseImageCommand(["--load"], {})).toThrow("--load needs a containerd socket");
  });
});

describe("image build rules", () => {
  test("contentKey: 12 hex, stable, and no two input lists collide by concatenation", () => {
    expect(contentKey(["a", "b"])).toMatch(/^[0-9a-f]{12}$/);
    expect(contentKey(["a", "b"])).toBe(contentKey(["a", new TextEncoder().encode("b")]));
    expect(contentKey(["ab", ""])).not.toBe(contentKey(["a", "b"]));
  });

  test("debianSuite: the release a debian:<major>[.<minor>][-slim] reference names", () => {
    expect(debianSuite("debian:12.11-slim")).toBe("bookworm");
    expect(debianSuite("docker.io/library/debian:13-slim")).toBe("trixie");
    expect(() => debianSuite("ubuntu:24.04")).toThrow('"ubuntu:24.04"');
    expect(() => debianSuite("debian:99-slim")).toThrow("debian:99-slim");
  });

  test("natsVersion and goModuleVersion read the versions the images are tagged with", () => {
    expect(natsVersion("nats-server: v2.9.10\n")).toBe("2.9.10");
    const status =
      "Package: nats\nVersion: 9.9.9\n\nPackage: nats-server\nStatus: install ok installed\nVersion: 2.9.10-1+b5\n\nPackage: zlib1g\nVersion: 1.2.13\n";
    expect(natsVersion(dpkgVersion(status, "nats-server"))).toBe("2.9.10");
    expect(dpkgVersion(status, "nats-serv")).toBe("");
    expect(() => natsVersion("command not found")).toThrow("printed no version");
    const goMod = "module x\n\nrequire (\n\tgithub.com/tiny-systems/module v0.13.125\n\tgithub.com/tiny-systems/module-extra v9.9.9\n)\n";
    expect(goModuleVersion("github.com/tiny-systems/module", goMod)).toBe("0.13.125");
    expect(goModuleVersion("github.com/tiny-systems/module-extra", goMod)).toBe("9.9.9");
    expect(goModuleVersion("github.com/tiny-systems/otel-collector")).toMatch(/^\d+\.\d+\.\d+$/);
    expect(() => goModuleVersion("github.com/x/y", "module x\n")).toThrow("does not require github.com/x/y");
  });

  test("chooseDriver: the store's existing driver, else overlay if it mounts, else vfs; TINYHOST_BUILDAH_DRIVER forces one", async () => {
    const root = mkdtempSync(join(tmpdir(), "store-"));
    const saved = process.env.TINYHOST_BUILDAH_DRIVER;
    delete process.env.TINYHOST_BUILDAH_DRIVER;
    try {
      const ok = async () => undefined;
      const fails = async () => {
        throw new Error("overlay: not supported");
      };
      expect(await chooseDriver(root, ok)).toBe("overlay");
      expect(await chooseDriver(root, fails)).toBe("vfs");
      mkdirSync(join(root, "overlay"));
      expect(await chooseDriver(root, fails)).toBe("overlay");
      mkdirSync(join(root, "vfs"));
      expect(await chooseDriver(root, ok)).toBe("vfs");
      process.env.TINYHOST_BUILDAH_DRIVER = "overlay";
      expect(await chooseDriver(root, fails)).toBe("overlay");
      process.env.TINYHOST_BUILDAH_DRIVER = "btrfs";
      await expect(chooseDriver(root, ok)).rejects.toThrow("must be overlay or vfs");
    } finally {
      if (saved === undefined) delete process.env.TINYHOST_BUILDAH_DRIVER;
      else process.env.TINYHOST_BUILDAH_DRIVER = saved;
      rmSync(root, { recursive: true, force: true });
    }
  });
});
