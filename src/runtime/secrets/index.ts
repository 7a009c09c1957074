/** `[[secret:name/key]]` placeholders in settings: parsing, resolution and where values come from. */
export {
  containsPlaceholder,
  parsePlaceholder,
  resolvePlaceholders,
  SECRET_PLACEHOLDER,
  type Resolved,
  type SecretLookup,
  type SecretRef,
} from "./placeholder.ts";
export {
  kubeSecretSource,
  localSecretSource,
  mapSecretSource,
  NO_SECRET_SOURCE,
  SECRET_ENV_PREFIX,
  SecretError,
  secretEnvName,
  type SecretErrorCode,
  type SecretSource,
} from "./source.ts";
export { malformedPlaceholders, placeholderWarnings, warnMalformedPlaceholders, type MalformedPlaceholder } from "./malformed.ts";
