/**
 * http_auth_parse (http-module basicauth/header-parser): the table of its Go test
 * (parser_test.go: no headers, no auth header, wrong password, all good) through the real runner,
 * plus RFC 7617/7235 cases Go gets wrong (a colon in the password, a lower-case scheme) and
 * hostile values (bad base64, no colon, a non-list headers field).
 */
import { describe, expect, test } from "bun:test";
import { ok, testComponent } from "tinyhost";
import parser, { basicCredentials } from "../../../components/http_auth_parse.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

const basic = (s: string) => "Basic " + Buffer.from(s, "utf8").toString("base64");

describe("http_auth_parse", () => {
  test("no headers: emits found=false with the context, once", async () => {
    const h = await testComponent(parser);
    h.respond("out", (d) => ok(d));
    const r = await h.send("in", { context: { req: 1 } });
    expect(h.emitted).toEqual([{ port: "out", data: { context: { req: 1 }, found: false, user: "", password: "" } }]);
    expect(r).toEqual({ kind: "ok", value: h.emitted[0]!.data });
    await h.stop();
  });

  test("headers without Authorization: found=false", async () => {
    const h = await testComponent(parser);
    await h.send("in", { context: null, headers: [{ key: "test", value: "s" }] });
    expect(h.emitted).toEqual([{ port: "out", data: { context: null, found: false, user: "", password: "" } }]);
    await h.stop();
  });

  test("an Authorization: Basic header decodes to user and password (key matched without case)", async () => {
    const h = await testComponent(parser);
    await h.send("in", {
      context: "c",
      headers: [
        { key: "x", value: "y" },
        { key: "AUTHORIZATION", value: "Basic dXNlcm5hbWUxOnBhc3N3b3JkMQ==" },
      ],
    });
    expect(h.emitted).toEqual([{ port: "out", data: { context: "c", found: true, user: "username1", password: "password1" } }]);
    await h.stop();
  });

  test("the password is everything after the first colon (RFC 7617), and the scheme is matched without case (RFC 7235)", () => {
    expect(basicCredentials([{ key: "Authorization", value: basic("ada:pa:ss:word") }])).toEqual({ user: "ada", password: "pa:ss:word" });
    expect(basicCredentials([{ key: "authorization", value: basic("ada:").replace("Basic", "basic") }])).toEqual({ user: "ada", password: "" });
    expect(basicCredentials([{ key: "Authorization", value: basic("ünïcode:pässwörd") }])).toEqual({ user: "ünïcode", password: "pässwörd" });
  });

  test("a value that is not Basic, not standard base64, or has no colon is skipped; a later good one is used", () => {
    expect(basicCredentials([{ key: "Authorization", value: "Bearer abc" }])).toBeUndefined();
    expect(basicCredentials([{ key: "Authorization", value: "Basic dXNlcm5hbWU" }])).toBeUndefined(); // unpadded
    expect(basicCredentials([{ key: "Authorization", value: "Basic !!!!" }])).toBeUndefined();
    expect(basicCredentials([{ key: "Authorization", value: basic("nocolon") }])).toBeUndefined();
    expect(
      basicCredentials([
        { key: "Authorization", value: "Basic %%%" },
        { key: "Authorization", value: basic("u:p") },
      ]),
    ).toEqual({ user: "u", password: "p" });
    expect(basicCredentials(null)).toBeUndefined();
  });

  test("headers that are not a list of {key, value} fail the hop naming the field", async () => {
    const h = await testComponent(parser);
    const r = await h.send("in", { headers: "Authorization: Basic x" });
    expect(r.kind === "fail" && r.error.message).toContain("$.headers");
    expect(h.emitted).toEqual([]);
    await h.stop();
  });
});
