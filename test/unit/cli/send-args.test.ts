import { describe, expect, test } from "bun:test";
import { DEFAULT_SEND_TIMEOUT_MS, parseDuration, parseSendArgs } from "../../../src/cli/commands/send.ts";
import { SETTINGS_REFUSED } from "../../../src/console/settings-port.ts";
import { resolve } from "node:path";

const noStdin = () => Promise.reject(new Error("no stdin"));

describe("tinyhost send arguments", () => {
  test("local mode by --local <dir> or --console <url>; the JSON defaults to {}", async () => {
    expect(await parseSendArgs(["--local", "ex", "Count ticks", "_control", '{"reset":true}'], {}, noStdin)).toEqual({
      node: "Count ticks",
      port: "_control",
      data: { reset: true },
      target: { kind: "local", dir: resolve("ex") },
      wait: false,
      timeoutMs: DEFAULT_SEND_TIMEOUT_MS,
    });
    expect(await parseSendArgs(["--console", "http://127.0.0.1:7878/", "n", "in"], {}, noStdin)).toMatchObject({
      data: {},
      target: { kind: "console", url: "http://127.0.0.1:7878" },
    });
  });

  test("a cluster by --nats-url or TINY_NATS_URL; --transport or TINY_NATS_TRANSPORT picks JetStream", async () => {
    expect(await parseSendArgs(["a.m.c-1", "_control", "{}", "--wait", "--timeout", "5s"], { TINY_NATS_URL: "nats://x:4222" }, noStdin)).toMatchObject({
      target: { kind: "nats", url: "nats://x:4222", transport: "core" },
      wait: true,
      timeoutMs: 5000,
    });
    expect(await parseSendArgs(["a.m.c-1", "in"], { TINY_NATS_URL: "nats://x", TINY_NATS_TRANSPORT: "jetstream" }, noStdin)).toMatchObject({
      target: { transport: "jetstream" },
    });
    expect(
      await parseSendArgs(["--nats-url", "nats://y", "--transport", "core", "a.m.c-1", "in"], { TINY_NATS_TRANSPORT: "jetstream" }, noStdin),
    ).toMatchObject({ target: { url: "nats://y", transport: "core" } });
  });

  test("'-' reads the JSON from standard input", async () => {
    expect(await parseSendArgs(["--local", "d", "n", "in", "-"], {}, async () => '{"n":1}\n')).toMatchObject({ data: { n: 1 } });
  });

  test("usage errors name what is wrong", async () => {
    expect(await parseSendArgs(["n"], {}, noStdin)).toBe('needs <node> and <port> (got only "n")');
    expect(await parseSendArgs(["--local", "d", "n", "in", "{nope"], {}, noStdin)).toStartWith("the message is not JSON:");
    expect(await parseSendArgs(["n", "in"], {}, noStdin)).toStartWith("say where the flow runs: --local <dir>");
    expect(await parseSendArgs(["--local", "d", "--console", "http://x", "n", "in"], {}, noStdin)).toBe("give --local <dir> or --console <url>, not both");
    expect(await parseSendArgs(["--local", "d", "--nats-url", "nats://x", "n", "in"], {}, noStdin)).toBe(
      "--local sends to local mode; --nats-url and --transport are for a cluster",
    );
    expect(await parseSendArgs(["--nats-url", "nats://x", "--transport", "grpc", "n", "in"], {}, noStdin)).toBe(
      '--transport must be core or jetstream, got "grpc"',
    );
    expect(await parseSendArgs(["--local", "d", "n", "a:b"], {}, noStdin)).toBe('<port> must be a port name, got "a:b"');
    expect(await parseSendArgs(["--local", "d", "--timeout", "soon", "n", "in"], {}, noStdin)).toBe(
      '--timeout must be a duration like 500ms, 30s or 2m, got "soon"',
    );
    expect(await parseSendArgs(["--bogus"], {}, noStdin)).toContain("--bogus");
    expect(await parseSendArgs(["-h"], {}, noStdin)).toBe("help");
  });

  test("_settings is refused with the reason: the node's next reconcile would put its own settings back (Go's runner does)", async () => {
    for (const args of [
      ["--local", "d", "Count ticks", "_settings", '{"step":5}'],
      ["--nats-url", "nats://x", "a.m.c-1", "_settings"],
    ]) {
      const r = await parseSendArgs(args, {}, noStdin);
      expect(r).toBe(SETTINGS_REFUSED);
      expect(r).toContain("next reconcile");
    }
  });

  test("--id is a JetStream message id: refused on core NATS and local mode, and when blank or spaced", async () => {
    expect(await parseSendArgs(["--nats-url", "nats://x", "--transport", "jetstream", "--id", "order-7", "a.m.c-1", "in"], {}, noStdin)).toMatchObject({
      msgId: "order-7",
    });
    expect(await parseSendArgs(["--nats-url", "nats://x", "--id", "k", "a.m.c-1", "in"], {}, noStdin)).toBe(
      '--id needs --transport jetstream (the stream drops a resend with the same id; core NATS and local mode keep no ids), got --id "k"',
    );
    expect(await parseSendArgs(["--local", "d", "--id", "k", "n", "in"], {}, noStdin)).toStartWith("--id needs --transport jetstream");
    const js = (id: string) => parseSendArgs(["--nats-url", "nats://x", "--transport", "jetstream", "--id", id, "a.m.c-1", "in"], {}, noStdin);
    expect(await js("")).toBe("--id needs a key");
    expect(await js("a b")).toBe('--id must be 1 to 256 printable characters without spaces, got "a b"');
  });

  test("durations: ms, s, m and plain ms; zero and junk are refused", () => {
    expect([parseDuration("500ms"), parseDuration("1.5s"), parseDuration("2m"), parseDuration("250")]).toEqual([500, 1500, 120_000, 250]);
    expect([parseDuration("0s"), parseDuration("-1s"), parseDuration("1h")]).toEqual([undefined, undefined, undefined]);
  });
});
