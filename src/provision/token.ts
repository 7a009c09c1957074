/**
 * Broker token generation: 40 random alphanumerics, like the tinysystems-nats chart's
 * `randAlphaNum 40` (provision.md §5.3).
 */
import { randomBytes } from "node:crypto";

/** Length of a generated token, in characters. */
export const TOKEN_LENGTH = 40;

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/**
 * A fresh token of {@link TOKEN_LENGTH} characters from `[A-Za-z0-9]`, uniform (bytes ≥ 248 are
 * rejected so 62 divides the accepted range evenly).
 */
export function generateToken(): string {
  let out = "";
  while (out.length < TOKEN_LENGTH) {
    for (const b of randomBytes(64)) {
      if (b >= 248) continue;
      out += ALPHABET[b % 62];
      if (out.length === TOKEN_LENGTH) break;
    }
  }
  return out;
}
