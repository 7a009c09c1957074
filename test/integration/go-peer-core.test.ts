/**
 * The Go peer (the real Go SDK v0.13.125, test/go/peer) and `tinyhost run` in one flow over core
 * NATS (runtime-spec §4.3): both modules on the suite's nats-server, no TINY_NATS_TRANSPORT.
 * The shared behaviours are in test/support/go-peer-suite.ts.
 */
import { mixedModuleTests } from "../support/go-peer-suite.ts";

mixedModuleTests("core", {
  goSees: (text, code) => (code ? { error: `${code}: ${text}`, code } : { error: text }),
  tinyhostSees: (text, code) => ({ error: text, code }),
});
