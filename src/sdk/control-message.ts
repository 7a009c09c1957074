/**
 * Reading a `_control` message. Go decodes it into the control struct of the current state (missing
 * fields zero); tinyhost hands the validated JSON, so components read the few fields they act on.
 */

/** The fields of a `_control` message the bundled components act on. */
export interface ControlMessage {
  /** `true` when the message asks to start (the "Start" button). */
  start: boolean;
  /** `true` when the message asks to stop (the "Stop" button). */
  stop: boolean;
  /** `true` when the message carries a `context` key (even `null`). */
  hasContext: boolean;
  /** The `context` value when present. */
  context: unknown;
  /** The raw object (`{}` for a non-object message). */
  fields: Readonly<Record<string, unknown>>;
}

/** Reads `message` (any JSON value) as a {@link ControlMessage}; non-objects read as empty. */
export function readControl(message: unknown): ControlMessage {
  const fields = typeof message === "object" && message !== null && !Array.isArray(message) ? (message as Record<string, unknown>) : {};
  return {
    start: fields.start === true,
    stop: fields.stop === true,
    hasContext: Object.hasOwn(fields, "context"),
    context: fields.context,
    fields,
  };
}
