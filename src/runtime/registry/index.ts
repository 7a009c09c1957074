/**
 * The component registry (runtime-spec §1.1, landscape §D.7); discovery from files is src/loader/discover.ts. `loadStaticRegistry`
 * lives in ./static.ts and is imported separately, because it pulls every bundled component into
 * the bundle.
 */
export { createRegistry, type Registry, type RegistryEntry } from "./registry.ts";
export { componentOf } from "./check.ts";
export { COMPONENT_GLOB, isComponentFile, listComponentFiles } from "./files.ts";
export {
  RegistryError,
  DuplicateComponentError,
  InvalidComponentFileError,
  ComponentImportError,
  componentLoadError,
  type RegistryErrorCode,
} from "./errors.ts";
export { describeComponent, describePort, portSchema, UNLISTED_PORTS, type ComponentDescription, type PortDescription } from "./describe.ts";
