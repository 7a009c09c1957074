import { describe, expect, test } from "bun:test";
import { ListenError } from "../../../src/sdk/http/listener.ts";
import { isListenError, isPortInUse, listenErrorPort } from "../../../src/local/listen-watch.ts";

describe("http_server bind failures", () => {
  test("a real ListenError is recognised as one, by its code and by its text (the log line carries only the text)", () => {
    const err = new ListenError(8123, Object.assign(new Error("Failed to start server. Is port 8123 in use?"), { code: "EADDRINUSE" }));
    expect(isListenError(err)).toBe(true);
    expect(isPortInUse(err)).toBe(true);
    expect(listenErrorPort(err.message)).toBe(8123);
  });

  test("other texts are not bind failures", () => {
    expect(listenErrorPort("signal: downstream failed")).toBeUndefined();
    expect(listenErrorPort("xhttp_server: cannot listen on :1: y")).toBeUndefined();
  });
});
