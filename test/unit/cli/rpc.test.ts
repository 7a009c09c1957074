/**
 * `tinyhost rpc` argument handling, and how agent tools are listed: with the `agent_tool` tag in
 * `tinyhost components` (Go's `tools components-info`), as authored in TinyModule status (Go's
 * TinyModule controller lists `GetInfo()` unchanged).
 */
import { describe, expect, spyOn, test } from "bun:test";
import { defineComponent, ok, source, target, Type } from "tinyhost";
import { platformListing } from "../../../src/cli/platform-listing.ts";
import { rpcCommand, rpcUsage } from "../../../src/cli/commands/rpc.ts";
import { componentStatuses } from "../../../src/k8s/controllers/index.ts";

async function run(...args: string[]): Promise<{ code: number; err: string }> {
  const errors: string[] = [];
  const spy = spyOn(console, "error").mockImplementation((...a: unknown[]) => void errors.push(a.join(" ")));
  const log = spyOn(console, "log").mockImplementation(() => {});
  try {
    return { code: await rpcCommand.run(args), err: errors.join("\n") };
  } finally {
    spy.mockRestore();
    log.mockRestore();
  }
}

describe("tinyhost rpc arguments", () => {
  test("names what is missing or wrong, with exit 2", async () => {
    expect(await run()).toMatchObject({ code: 2, err: expect.stringContaining("missing <module>") });
    expect(await run("m")).toMatchObject({ code: 2, err: expect.stringContaining("missing <component>") });
    expect(await run("tinyhost", "c", "{", "--local")).toMatchObject({ code: 2, err: expect.stringContaining("the payload is not valid JSON") });
    expect(await run("tinyhost", "c", "{}", "extra", "--local")).toMatchObject({ code: 2, err: expect.stringContaining('unexpected argument "extra"') });
    expect(await run("tinyhost", "c", "--local", "--timeout", "0")).toMatchObject({ code: 2, err: expect.stringContaining('--timeout "0"') });
    expect(await run("m", "c", "--components", "x")).toMatchObject({ code: 2, err: expect.stringContaining("--components needs --local") });
    expect(await run("othermod", "double", "--local")).toMatchObject({
      code: 2,
      err: expect.stringContaining('module "othermod" is not the module --local runs ("tinyhost")'),
    });
    expect(await run("m", "c", "--name", "m")).toMatchObject({ code: 2, err: expect.stringContaining("--name needs --local") });
    expect(await run("m", "c", "--bogus")).toMatchObject({ code: 2, err: expect.stringContaining("--bogus") });
  });

  test("--help prints the usage with exit 0", async () => {
    expect((await run("--help")).code).toBe(0);
    expect(rpcUsage(false)).toContain("--components <dir>   with --local: the component files (default ./components)");
    expect(rpcUsage(true)).toContain("default: the components compiled into this binary");
  });
});

describe("agent tool listings", () => {
  const tool = defineComponent({
    info: { name: "lookup", description: "Lookup", info: "looks things up", tags: ["SDK"] },
    agentTool: { description: "Find a record by id." },
    ports: () => [target("in", Type.Object({ id: Type.String() })), source("out", Type.Any())],
    handle: () => ok(1),
  });
  const plain = defineComponent({
    info: { name: "plain", description: "Plain", info: "i", tags: ["SDK"] },
    ports: () => [target("in", Type.Any())],
    handle: () => ok(1),
  });

  test("tinyhost components tags an agent tool agent_tool and shows its tool description, as Go's components-info", () => {
    expect(platformListing(tool)).toMatchObject({ name: "lookup", info: "Find a record by id.", tags: ["SDK", "agent_tool"] });
    expect(platformListing(plain)).toMatchObject({ info: "i", tags: ["SDK"] });
  });

  test("tinyhost components tags a syncRpc component sync_rpc after agent_tool, as Go's components-info; TinyModule status does not", () => {
    const both = defineComponent({
      info: { name: "door", description: "Door", info: "i", tags: ["HTTP"] },
      agentTool: true,
      syncRpc: true,
      ports: () => [target("in", Type.Any()), source("out", Type.Any())],
      handle: () => ok(1),
    });
    const sync = defineComponent({
      info: { name: "srv", description: "Srv", info: "i", tags: ["HTTP", "Server"] },
      syncRpc: true,
      ports: () => [target("in", Type.Any())],
      handle: () => ok(1),
    });
    expect(platformListing(both)).toMatchObject({ info: "i", tags: ["HTTP", "agent_tool", "sync_rpc"] });
    expect(platformListing(sync)).toMatchObject({ tags: ["HTTP", "Server", "sync_rpc"] });
    expect(componentStatuses([sync])[0]).toMatchObject({ tags: ["HTTP", "Server"] });
    expect(() =>
      defineComponent({ info: { name: "bad", description: "", info: "" }, syncRpc: 1 as unknown as true, ports: () => [], handle: () => ok(1) }),
    ).toThrow("syncRpc must be true or absent, got 1");
  });

  test("TinyModule status lists an agent tool's authored info and tags, as Go's TinyModule controller", () => {
    const [s] = componentStatuses([tool]);
    expect(s).toMatchObject({ name: "lookup", description: "Lookup", info: "looks things up", tags: ["SDK"] });
    expect(s!.ports!.map((p) => p.name)).toEqual(["in", "out"]);
  });
});
