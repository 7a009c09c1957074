/**
 * The shape of an encoding conformance case and of Go's outcome (test/go/codecs). One case is one
 * call of a Go codec; `id` is unique and stable (its recording is keyed by it).
 */

/** One call of a Go codec: `op` and that op's fields (test/go/codecs/main.go lists them). */
export interface EncodingCase {
  id: string;
  op: "csv_read" | "csv_write" | "json_decode" | "json_encode" | "xml_encode" | "sprint" | "template" | "jwt_sign" | "jwt_parse";
  text?: string;
  comma?: string;
  trim?: boolean;
  lazy?: boolean;
  ragged?: boolean;
  records?: string[][];
  value?: unknown;
  format?: string;
  values?: unknown[];
  templates?: { name: string; content: string }[];
  partials?: { name: string; content: string }[];
  name?: string;
  data?: string;
  now?: string;
  method?: string;
  claims?: string;
  key?: string;
  token?: string;
}

/**
 * What Go returned. Text outputs longer than {@link DIGEST_OVER} characters are recorded as
 * `sha256:<hex> len:<n>` so the recording stays small.
 */
export interface GoOutcome {
  records?: string[][] | string;
  text?: string;
  value?: string;
  token?: string;
  claims?: string;
  error?: string;
  parseError?: string;
  panic?: string;
}

/** Outputs longer than this many characters are recorded as a digest. */
export const DIGEST_OVER = 4096;
