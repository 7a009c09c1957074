/** The compiled form of a port schema that both decoders walk: the general one (decode.ts) and the fast path (decode-fast.ts). */

/** A Go scalar kind. */
export type Scalar = "string" | "integer" | "number" | "boolean";

/** A struct field: its JSON key and its kind. */
export interface Field {
  readonly key: string;
  node: DecodeNode;
}

/** A Go kind the decoder emulates, compiled from a schema (decode.ts compiles it, decode-fast.ts reads it). */
export type DecodeNode =
  | { readonly k: "any" }
  | { readonly k: "null" }
  | { readonly k: "scalar"; readonly type: Scalar; readonly nullable: boolean }
  | {
      readonly k: "struct";
      readonly fields: Field[];
      readonly exact: Map<string, Field>;
      readonly folded: Map<string, Field>;
      rest: DecodeNode | undefined;
      readonly nullable: boolean;
    }
  | { readonly k: "map"; values: DecodeNode }
  | { readonly k: "array"; items: DecodeNode }
  | { readonly k: "union"; readonly branches: DecodeNode[]; readonly types: string }
  | { readonly k: "ref"; target: DecodeNode | undefined; readonly name: string }
  | { readonly k: "nullable"; readonly inner: DecodeNode };
