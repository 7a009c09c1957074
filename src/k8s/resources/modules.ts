/**
 * createModule: registers the running module as a TinyModule at start-up (runtime-spec §7.3,
 * provision.md §5.1 "created by every pod at start-up, already-exists ignored").
 */
import { sanitizeResourceName, type TinyModule } from "../../core/api/index.ts";
import { isAlreadyExists } from "../client/index.ts";
import { InvalidArgumentError } from "./errors.ts";
import type { Kinds } from "./kinds.ts";
import { requireText } from "./names.ts";

/** What identifies a module: its unsanitized name and version (e.g. `tinysystems/common-module-v0`, `0.1.3`). */
export interface ModuleIdentity {
  name: string;
  version: string;
}

/**
 * Creates TinyModule `{name: sanitizeResourceName(name), spec.image: "<name>:<version>"}` in the
 * namespace, with `annotations` when given (the module's own registration writes its runtime
 * version there in the same request); an existing one is left as it is.
 * @returns true when created, false when it already existed.
 * @throws InvalidArgumentError (empty name/version, or a name with no letters or digits); KubeApiError.
 */
export async function createModule(kinds: Kinds, namespace: string, module: ModuleIdentity, annotations?: Record<string, string>): Promise<boolean> {
  const name = requireText("module.name", module?.name);
  const version = requireText("module.version", module.version);
  const resourceName = sanitizeResourceName(name);
  if (resourceName === "") throw new InvalidArgumentError("module.name", `${JSON.stringify(name)} has no letters or digits to build a resource name from`);
  const object: TinyModule = { metadata: { name: resourceName, namespace, ...(annotations ? { annotations } : {}) }, spec: { image: `${name}:${version}` } };
  try {
    await kinds.modules.create(object, namespace);
    return true;
  } catch (e) {
    if (isAlreadyExists(e)) return false;
    throw e;
  }
}
