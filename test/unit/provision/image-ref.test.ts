/** Image references (src/provision/image-ref.ts): the distribution/reference grammar, with reasons. */
import { describe, expect, test } from "bun:test";
import { ImageReferenceError, MAX_IMAGE_NAME_LENGTH, normalizeImageReference, parseImageReference } from "../../../src/provision/image-ref.ts";
import { provisionCommand } from "../../../src/cli/commands/provision.ts";

const HEX64 = "a".repeat(64);

function reason(ref: string): string {
  try {
    parseImageReference(ref);
  } catch (e) {
    if (e instanceof ImageReferenceError) return e.reason;
    throw e;
  }
  throw new Error(`expected ${JSON.stringify(ref)} to be refused`);
}

describe("parseImageReference", () => {
  test("splits registry, path, tag and digest", () => {
    expect(parseImageReference("ghcr.io/acme/tinyhost:0.1.0")).toEqual({
      registry: "ghcr.io",
      path: "acme/tinyhost",
      repository: "ghcr.io/acme/tinyhost",
      tag: "0.1.0",
    });
    expect(parseImageReference("localhost:5000/tinyhost")).toEqual({ registry: "localhost:5000", path: "tinyhost", repository: "localhost:5000/tinyhost" });
    expect(parseImageReference("tinyhost:0.1.0")).toEqual({ path: "tinyhost", repository: "tinyhost", tag: "0.1.0" });
    expect(parseImageReference(`library/nginx:1.25@sha256:${HEX64}`)).toEqual({
      path: "library/nginx",
      repository: "library/nginx",
      tag: "1.25",
      digest: `sha256:${HEX64}`,
    });
    expect(parseImageReference("[::1]:5000/x:1").registry).toBe("[::1]:5000");
    expect(parseImageReference("Registry.Example.com/a.b/c__d/e---f_g:T_1").path).toBe("a.b/c__d/e---f_g");
  });

  test("a first part without '.', ':' or upper case and not localhost is a path component (Docker Hub)", () => {
    expect(parseImageReference("acme/tinyhost:1").registry).toBeUndefined();
    expect(parseImageReference("localhost/tinyhost:1").registry).toBe("localhost");
  });

  test("a placeholder such as <registry> is refused, naming the part and asking to replace it", () => {
    expect(reason("<registry>/tinyhost:0.1.0")).toBe(
      'the path component "<registry>" is not lowercase letters and digits separated by ".", "_", "__" or "-" — replace the placeholder <registry>',
    );
  });

  test("each broken part is named", () => {
    expect(reason("ghcr.io/Acme/shop:1")).toBe('the path component "Acme" has upper-case letters (repository paths are lowercase)');
    expect(reason("ghcr.io//shop:1")).toContain("has an empty component");
    expect(reason("shop/:1")).toContain("has an empty component");
    expect(reason("a/-b:1")).toContain('the path component "-b"');
    expect(reason("a___b:1")).toContain('the path component "a___b"');
    expect(reason("shop:")).toContain('the tag ""');
    expect(reason("shop:1.0!")).toContain('the tag "1.0!"');
    expect(reason(`shop:${"x".repeat(129)}`)).toContain("the tag");
    expect(reason(":1.0")).toBe("it has no repository path before the tag or digest");
    expect(reason("shop@sha256:abc")).toContain('the digest "sha256:abc"');
    expect(reason("host.example:99999/x:1")).toBe('the registry port "99999" is not a number 1–65535');
    expect(reason("ex_ample.com/x:1")).toBe('the registry host "ex_ample.com" is not a host name, IPv4 or [IPv6] address');
    expect(reason("my image:1")).toBe("it contains white space");
    expect(reason("")).toBe("it is empty");
    expect(reason(`a/${"b".repeat(MAX_IMAGE_NAME_LENGTH)}:1`)).toBe(`the name is ${MAX_IMAGE_NAME_LENGTH + 2} characters (at most ${MAX_IMAGE_NAME_LENGTH})`);
  });
});

describe("normalizeImageReference (the name containerd and the kubelet store)", () => {
  test("completes Docker Hub names, keeps other registries, tags and digests", () => {
    expect(normalizeImageReference("tinyhost:0.1.0")).toBe("docker.io/library/tinyhost:0.1.0");
    expect(normalizeImageReference("acme/shop:1")).toBe("docker.io/acme/shop:1");
    expect(normalizeImageReference("docker.io/nats:2")).toBe("docker.io/library/nats:2");
    expect(normalizeImageReference("index.docker.io/nats:2")).toBe("docker.io/library/nats:2");
    expect(normalizeImageReference("localhost/tinyhost-base/debian:x")).toBe("localhost/tinyhost-base/debian:x");
    expect(normalizeImageReference("ghcr.io/tiny-systems/otel-collector:0.6.0")).toBe("ghcr.io/tiny-systems/otel-collector:0.6.0");
    const digest = `sha256:${"b".repeat(64)}`;
    expect(normalizeImageReference(`reg:5000/x@${digest}`)).toBe(`reg:5000/x@${digest}`);
    expect(normalizeImageReference("busybox")).toBe("docker.io/library/busybox");
    expect(() => normalizeImageReference("Bad/Upper")).toThrow(ImageReferenceError);
  });
});

describe("tinyhost provision --image", () => {
  async function run(args: string[]): Promise<{ code: number; err: string }> {
    const error = console.error;
    let err = "";
    console.error = (...a: unknown[]) => void (err += a.join(" "));
    try {
      return { code: await provisionCommand.run(args), err };
    } finally {
      console.error = error;
    }
  }

  test("--dry-run with an invalid reference exits 2 naming the flag, the value, the reason and the form", async () => {
    const r = await run(["--dry-run", "--image", "<registry>/tinyhost:0.1.0"]);
    expect(r.code).toBe(2);
    expect(r.err).toStartWith(
      'tinyhost provision: --image "<registry>/tinyhost:0.1.0" is not a valid image reference: the path component "<registry>" is not lowercase letters',
    );
    expect(r.err).toContain("expected [registry[:port]/]path[:tag][@digest]");
  });

  test("a digest or a missing tag is still refused after the grammar passes", async () => {
    expect((await run(["--dry-run", "--image", `ghcr.io/acme/x:1.0.0@sha256:${HEX64}`])).err).toContain("must be repository:tag without a digest");
    expect((await run(["--dry-run", "--image", "ghcr.io/acme/x"])).err).toContain('needs a tag (repository:tag), got "ghcr.io/acme/x"');
  });
});
