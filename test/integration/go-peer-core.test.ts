/**
 * The Go peer (the real Go SDK v0.13.125, test/go/peer) and `tinyhost run` in one flow over core
 * NATS (runtime-spec §4.3): both modules on the suite's nats-server, no TINY_NATS_TRANSPORT.
 * The shared behaviours are in test/support/go-peer-suite.ts; here also what does not depend on
 * the wire: the TinyModule and TinyNode status each runtime writes.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SDK_VERSION, version as tinyhostVersion } from "../../src/core/version.ts";
import { sanitizeResourceName } from "../../src/core/api/index.ts";
import { tinyModules, tinyNodes } from "../../src/k8s/controllers/index.ts";
import { TINYHOST_VERSION_ANNOTATION } from "../../src/operator/index.ts";
import { mixedFlow } from "../support/go-peer.ts";
import { busyRefusalThroughGo, flowPrefix, nameOf } from "../support/go-peer-bed.ts";
import { mixedModuleTests } from "../support/go-peer-suite.ts";

/** The SDK version the Go peer is built with (test/go/go.mod), as Go reports it: no leading `v`. */
const PEER_SDK = /github\.com\/tiny-systems\/module v(\S+)/.exec(readFileSync(join(resolve(import.meta.dir, "../.."), "test/go/go.mod"), "utf8"))![1]!;

const keys = (o: object | undefined) => Object.keys(o ?? {}).sort();

mixedModuleTests(
  "core",
  {
    goSees: (text, code) => (code ? { error: `${code}: ${text}`, code } : { error: text }),
    tinyhostSees: (text, code) => ({ error: text, code }),
  },
  (bed) => {
    test("sdkVersion is an SDK version on both runtimes (Go: the one it is built with; tinyhost: the one it implements), with the same status fields", async () => {
      const b = bed();
      const p = flowPrefix();
      const goSink = b.go.node("sink", "v");
      const thSink = b.th.node("sink", "v");
      await b.apply(mixedFlow(b.ns, p, [goSink, thSink], []));
      const goNode = await b.kube.get(tinyNodes, nameOf(p, goSink), b.ns);
      const thNode = await b.kube.get(tinyNodes, nameOf(p, thSink), b.ns);
      expect(goNode.status?.module).toEqual({ name: b.go.name, version: "1.0.0", sdkVersion: PEER_SDK });
      expect(thNode.status?.module).toEqual({ name: b.th.name, version: "1.0.0", sdkVersion: SDK_VERSION });
      expect(keys(thNode.status)).toEqual(keys(goNode.status));

      const goModule = await b.kube.get(tinyModules, sanitizeResourceName(b.go.name), b.ns);
      const thModule = await b.kube.get(tinyModules, sanitizeResourceName(b.th.name), b.ns);
      expect(goModule.status?.sdkVersion).toBe(PEER_SDK);
      expect(thModule.status?.sdkVersion).toBe(SDK_VERSION);
      expect(SDK_VERSION).toMatch(/^0\.13\.\d+$/);
      expect(keys(thModule.status)).toEqual(keys(goModule.status));
      expect(keys(thModule.spec)).toEqual(keys(goModule.spec));
      // tinyhost's own version is where a human looks: an annotation and /metrics (Go has neither).
      expect(thModule.metadata.annotations?.[TINYHOST_VERSION_ANNOTATION]).toBe(tinyhostVersion);
      expect(goModule.metadata.annotations?.[TINYHOST_VERSION_ANNOTATION]).toBeUndefined();
      expect(await b.th.proc.metrics()).toContain(`tinyhost_build_info{version="${tinyhostVersion}",sdk_version="${SDK_VERSION}"} 1`);
    }, 90_000);

    test("tinyhost's BUSY refusal reaches a Go sender as a plain coded error (the x-refused mark is ignored); the refused hop never runs (docs/compatibility.md, core NATS)", async () => {
      const b = bed();
      const { first, echo, mid } = await busyRefusalThroughGo(b);
      expect(mid.runtime).toBe("go");
      expect(mid.code).toBe("BUSY");
      // Go rebuilds a coded error from `x-error-code` + `x-error`, whose text already starts with the
      // code, so the code shows twice — what Go does for every coded error (runtime-spec §16 item 18).
      expect(mid.error).toStartWith(`BUSY: BUSY: module busy: 1 hops running, hop to "${echo}:in" refused`);
      const top = await b.waitForRecord("tinyhost relay got Go's error", (r) => r.node === first);
      expect(top.error).toContain("module busy");
      expect(b.records().filter((r) => r.node === echo)).toEqual([]); // the refused hop never ran
    }, 120_000);
  },
);
