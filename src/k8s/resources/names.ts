/**
 * Argument checks and name prefixes shared by the create helpers (runtime-spec §7.3).
 */
import { sanitizeResourceName } from "../../core/api/index.ts";
import { InvalidArgumentError } from "./errors.ts";

/**
 * Requires a non-empty string argument.
 * @throws InvalidArgumentError naming the field.
 */
export function requireText(field: string, value: unknown): string {
  if (typeof value !== "string" || value === "") throw new InvalidArgumentError(field, `must be a non-empty string, got ${JSON.stringify(value)}`);
  return value;
}

/**
 * The `metadata.generateName` the Go helpers use: the sanitized display name, no trailing dash
 * (so `My Flow` → `my-flow` and the server appends 5 characters: `my-flowx7k2p`).
 * @throws InvalidArgumentError when nothing of the name survives sanitizing.
 */
export function generateNameFor(field: string, displayName: string): string {
  const prefix = sanitizeResourceName(requireText(field, displayName));
  if (prefix === "") throw new InvalidArgumentError(field, `${JSON.stringify(displayName)} has no letters or digits to build a resource name from`);
  return prefix;
}
