/**
 * Registry errors. Each stops start-up: a module that cannot tell which component a file is must not
 * serve a partial set (runtime-spec §9: any setup error → exit 1, "a module that dies reports that it died").
 */

import { TinyError } from "../../core/errors.ts";

/** Why discovery failed. */
export type RegistryErrorCode = "DUPLICATE_COMPONENT" | "INVALID_COMPONENT" | "COMPONENT_IMPORT_FAILED" | "COMPONENTS_DIR_NOT_FOUND" | "UNKNOWN_COMPONENT";

/** Base class: `code` says what went wrong, `files` the component files involved (may be empty). */
export class RegistryError extends TinyError<RegistryErrorCode> {
  constructor(
    code: RegistryErrorCode,
    message: string,
    readonly files: readonly string[] = [],
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
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

/**
 * The error a component file's import (evaluation) failure becomes: `INVALID_COMPONENT` when
 * `defineComponent` itself rejected the spec (a component problem), else `COMPONENT_IMPORT_FAILED`.
 * Shared by the component-file loader (src/loader/runtime-files.ts) and the static registry so both report a
 * bad file the same way.
 * @param file the component file as reported to the user.
 * @param cause what the import threw.
 */
export function componentLoadError(file: string, cause: unknown): RegistryError {
  if ((cause as { code?: unknown } | null)?.code === "INVALID_COMPONENT") {
    return new InvalidComponentFileError(file, (cause as Error).message, { cause });
  }
  return new ComponentImportError(file, cause);
}

/** Where a Bun `BuildMessage`/`ResolveMessage` points (Bun's `Position`: `line` as Bun prints it). */
interface MessagePosition {
  file: string;
  line: number;
  column: number;
}

function positionOf(value: unknown): MessagePosition | undefined {
  const pos = (value as { position?: unknown } | null)?.position as Partial<MessagePosition> | null | undefined;
  if (!pos || typeof pos.file !== "string" || typeof pos.line !== "number" || typeof pos.column !== "number") return undefined;
  return { file: pos.file, line: pos.line, column: pos.column };
}

/**
 * One line per message: `file:line:col: message` for a Bun transpiler message (a syntax error in
 * the component or a file it imports, an unresolvable import), else the error's message. Bun throws
 * these from `import()` as `BuildMessage`/`ResolveMessage`, or several in an `AggregateError`.
 */
function describe(cause: unknown): string {
  const many = cause instanceof AggregateError ? (cause.errors as unknown[]) : [cause];
  return many.map(describeOne).join("; ");
}

function describeOne(cause: unknown): string {
  const message =
    cause instanceof Error || (typeof cause === "object" && cause !== null && "message" in cause)
      ? String((cause as { message: unknown }).message)
      : String(cause);
  const pos = positionOf(cause);
  return pos ? `${displayFile(pos.file)}:${pos.line}:${pos.column}: ${message}` : message;
}

function displayFile(file: string): string {
  const cwd = process.cwd();
  return file.startsWith(`${cwd}/`) ? file.slice(cwd.length + 1) : file;
}
