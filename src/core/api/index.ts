/**
 * The operator.tinysystems.io/v1alpha1 API in TypeScript: object shapes, wire constants,
 * resource descriptors, naming rules and byte-field codecs. runtime-spec §8.
 */
export * from "./v1alpha1.ts";
export * from "./naming.ts";
