/**
 * Computes a JSON merge patch (RFC 7386) that turns `base` into `modified`: changed and new keys
 * carry their new value, removed keys carry `null`, arrays and scalars are replaced whole. The
 * same diff controller-runtime's `client.MergeFrom(base)` sends (runtime-spec §7.3 PatchNode).
 */
import { isDeepStrictEqual } from "node:util";
import { isPlainObject } from "../../core/plain-object.ts";

/**
 * The merge patch from `base` to `modified`.
 * @returns the patch value, or `undefined` when the two are deep-equal (nothing to send). A
 *   `modified` of `undefined` where `base` had a value yields `null` (delete).
 */
export function createMergePatch(base: unknown, modified: unknown): unknown {
  if (isPlainObject(base) && isPlainObject(modified)) {
    const patch: Record<string, unknown> = {};
    for (const key of Object.keys(base)) {
      if (base[key] !== undefined && modified[key] === undefined) patch[key] = null;
    }
    for (const [key, value] of Object.entries(modified)) {
      if (value === undefined) continue;
      const d = createMergePatch(base[key], value);
      if (d !== undefined) patch[key] = d;
    }
    return Object.keys(patch).length === 0 ? undefined : patch;
  }
  if (isDeepStrictEqual(base, modified)) return undefined;
  return modified === undefined ? null : modified;
}
