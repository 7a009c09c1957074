/**
 * What provision and uninstall report per object (one home for both, so neither imports the other).
 */

/**
 * What happened to one object. `kept` = create-if-absent found it (left untouched); `deleted` =
 * removed (a legacy object by provision, any object by uninstall); `absent` = uninstall found none.
 */
export type ApplyResult = "created" | "configured" | "unchanged" | "kept" | "deleted" | "absent";

/** One written object. */
export interface AppliedObject {
  kind: string;
  name: string;
  /** Absent for cluster-scoped objects. */
  namespace?: string;
  result: ApplyResult;
  /** resourceVersion after the write (or of the kept object). */
  resourceVersion: string;
}
