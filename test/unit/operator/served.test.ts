import { describe, expect, test } from "bun:test";
import type { TinyNode, TinyNodeStatus } from "../../../src/core/api/index.ts";
import { platformScoped, publishedComponents, servedModules } from "../../../src/operator/served.ts";

const node = (name: string, component: string) => ({ metadata: { name }, spec: { module: name.split(".")[1], component } }) as unknown as TinyNode;

/** Records what reaches the wrapped scheduler. */
function fakeScheduler(installed: readonly string[]) {
  const calls: string[] = [];
  return {
    calls,
    update: async (n: TinyNode): Promise<TinyNodeStatus> => (calls.push(`update ${n.metadata.name}`), {} as TinyNodeStatus),
    destroy: async (name: string) => void calls.push(`destroy ${name}`),
    installed: (c: string) => (installed.includes(c) ? {} : undefined),
  };
}

describe("the module names one process serves (run --also)", () => {
  test("--name first, then each --also; an --also platform name maps onto its Go module's components, --name keeps the whole set", () => {
    const s = servedModules("tinysystems/common-module-v0", ["Mine", "tinysystems/encoding-module-v0"]);
    expect(s.map((m) => [m.name, m.sanitized, m.platform?.name])).toEqual([
      ["tinysystems/common-module-v0", "tinysystems-common-module-v0", undefined],
      ["Mine", "mine", undefined],
      ["tinysystems/encoding-module-v0", "tinysystems-encoding-module-v0", "encoding-module-v0"],
    ]);
  });

  test("a name served twice, or no name at all, is refused naming the value", () => {
    expect(() => servedModules("a", ["b", "B"])).toThrow('--also = "B" names module b, already served as --also "b"');
    expect(() => servedModules("a", ["A"])).toThrow('--also = "A" names module a, already served as --name "a"');
    expect(() => servedModules("a", ["//"])).toThrow('--also = "//" is not a module name');
    expect(() => servedModules("//", [])).toThrow('--name = "//" is not a module name');
    expect(() => servedModules("a", ["b", "B"], ["--also", "TINYHOST_ALSO"])).toThrow('TINYHOST_ALSO = "B" names module b, already served as --also "b"');
    expect(() => servedModules("shop", ["tinysystems/shop"])).toThrow('--also = "tinysystems/shop" cannot be told from --name "shop" in a node name');
  });

  test("an --also of a platform module tinyhost does not bundle is refused naming it and the ones it stands in for; --name is not checked", () => {
    expect(() => servedModules("mine", ["tinysystems/kubernetes-module-v0"], ["TINYHOST_ALSO"])).toThrow(
      'TINYHOST_ALSO = "tinysystems/kubernetes-module-v0" is a platform module tinyhost does not bundle (it stands in for tinysystems/common-module-v0, tinysystems/http-module-v0, tinysystems/encoding-module-v0)',
    );
    expect(servedModules("tinysystems/kubernetes-module-v0", ["Tinysystems/HTTP-module-v0"]).map((m) => m.platform?.name)).toEqual([
      undefined,
      "http-module-v0",
    ]);
  });

  test("a platform module's TinyModule publishes only its components; another name publishes all", () => {
    const defs = ["transform", "csv_decode", "greet", "router"].map((name) => ({ info: { name } }));
    const [mine, common] = servedModules("mine", ["common-module-v0"]);
    expect(publishedComponents(common!, defs).map((d) => d.info.name)).toEqual(["transform", "router"]);
    expect(publishedComponents(mine!, defs)).toHaveLength(4);
  });

  test("a node of an --also platform module with another module's component is refused naming where it lives; its runner goes", async () => {
    const served = servedModules("mine", ["tinysystems/common-module-v0"]);
    const s = fakeScheduler(["transform", "csv_decode", "greet"]);
    const scoped = platformScoped(served, s);
    await scoped.update(node("f.tinysystems-common-module-v0.transform-aaaaa", "transform"));
    await scoped.update(node("f.mine.csv-decode-bbbbb", "csv_decode"));
    await expect(scoped.update(node("f.tinysystems-common-module-v0.csv-decode-ccccc", "csv_decode"))).rejects.toThrow(
      'component "csv_decode" is not part of common-module-v0 (its components: array_filter,',
    );
    await expect(scoped.update(node("f.tinysystems-common-module-v0.csv-decode-ccccc", "csv_decode"))).rejects.toThrow("it is in encoding-module-v0");
    await expect(scoped.update(node("f.tinysystems-common-module-v0.greet-ddddd", "greet"))).rejects.toThrow(
      "it is a tinyhost component: put the node in your own module",
    );
    expect(s.calls).toEqual([
      "update f.tinysystems-common-module-v0.transform-aaaaa",
      "update f.mine.csv-decode-bbbbb",
      "destroy f.tinysystems-common-module-v0.csv-decode-ccccc",
      "destroy f.tinysystems-common-module-v0.csv-decode-ccccc",
      "destroy f.tinysystems-common-module-v0.greet-ddddd",
    ]);
    expect(platformScoped(servedModules("mine", ["other"]), s)).toBe(s);
  });
});
