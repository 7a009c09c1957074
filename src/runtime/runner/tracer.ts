/**
 * Tracing hooks of the runner (runtime-spec §2.8). The OpenTelemetry implementation comes with the
 * telemetry work; until then {@link noopTracer} keeps the hot path allocation-free.
 */
import { noopTrace, type HopTrace } from "../../sdk/context.ts";
import type { Msg } from "../../transport/types.ts";

/** A span for one input or output hop. */
export interface HopSpan extends HopTrace {
  /** Ends the span, recording `error` when the hop failed. */
  end(error?: Error): void;
}

/** Opens spans for hops (runtime-spec §2.8: an input span per delivered hop, an output span per emit). */
export interface Tracer {
  /** Span for `msg` arriving on `node`'s `port`. */
  input(node: string, port: string, msg: Msg): HopSpan;
  /** Span for `node` emitting on `port`. */
  output(node: string, port: string): HopSpan;
}

const noopSpan: HopSpan = Object.freeze({ event: noopTrace.event, end() {} });

/** A tracer that records nothing. */
export const noopTracer: Tracer = Object.freeze({
  input: () => noopSpan,
  output: () => noopSpan,
});
