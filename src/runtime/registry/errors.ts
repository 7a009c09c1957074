/**
 * Registry errors. Each stops start-up: a module that cannot tell which component a file is must not
 * serve a partial set (runtime-spec §9: any setup error → exit 1, "a module that dies reports that it died").
 */

/** Why discovery failed. */
export type RegistryErrorCode =
  | "DUPLICATE_COMPONENT"
  | "INVALID_COMPONENT"
  | "COMPONENT_IMPORT_FAILED"
  | "COMPONENTS_DIR_NOT_FOUND"
  | "UNKNOWN_COMPONENT";

/** Base class: `code` says what went wrong, `files` the component files involved (may be empty). */
export class RegistryError extends Error {
  constructor(
    readonly code: RegistryErrorCode,
    message: string,
    readonly files: readonly string[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "RegistryError";
  }
}

/** Two files export components with the same `info.name` (Go: one name → one component, runtime-spec §1.1). */
export class DuplicateComponentError extends RegistryError {
  constructor(
    readonly componentName: string,
    first: string,
    second: string,
  ) {
    super("DUPLICATE_COMPONENT", `component "${componentName}" is defined twice: in ${first} and in ${second}`, [first, second]);
    this.name = "DuplicateComponentError";
  }
}

/** A component file whose default export is missing, not made by `defineComponent`, or has an empty name. */
export class InvalidComponentFileError extends RegistryError {
  constructor(
    file: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super("INVALID_COMPONENT", `${file}: ${reason}`, [file], options);
    this.name = "InvalidComponentFileError";
  }
}

/** Importing (evaluating) a component file threw. */
export class ComponentImportError extends RegistryError {
  constructor(file: string, cause: unknown) {
    super("COMPONENT_IMPORT_FAILED", `${file}: import failed: ${describe(cause)}`, [file], { cause });
    this.name = "ComponentImportError";
  }
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
