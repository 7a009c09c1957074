/**
 * The module's integer environment variables (`TINYHOST_MAX_CONCURRENT_HOPS`,
 * `TINYHOST_NODE_WORKERS`, `TINYHOST_HOP_QUEUE_WAIT_MS`, …; docs/operations.md §2, §10): one parser,
 * so every one takes the same spellings and fails with the same message.
 */

/**
 * The decimal integer in `env[name]`, at least `min`, or undefined when unset or empty. Only
 * digits are taken (at most 9): `Number()` alone would accept `0x10`, `1e3` and ` 8 `.
 * @param unit - words put before `≥` in the error, e.g. `"number of ms "`.
 * @throws Error naming the variable and the value otherwise.
 */
export function envInteger(env: Record<string, string | undefined>, name: string, min: number, unit = ""): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  const n = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} = ${JSON.stringify(raw)} must be a decimal integer ${unit}≥ ${min} (at most 9 digits)`);
  return n;
}
