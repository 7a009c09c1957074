/**
 * NATS transports (runtime-spec §4): the wire codec, core request/reply, JetStream (the durable run
 * ledger on KV `TINY_EXEC` and its reconciler are src/runtime/durable/).
 * One import for the run command.
 */
export { connectNats, NATS_CLIENT_NAME } from "./connect.ts";
export { CoreNatsTransport, type CoreNatsOptions, type ServeOptions } from "./core.ts";
export { JetStreamTransport, type JetStreamTransportOptions } from "./jetstream.ts";
export type { SystemMsgHandler } from "./serve.ts";
export * from "./errors.ts";
export * from "./names.ts";
