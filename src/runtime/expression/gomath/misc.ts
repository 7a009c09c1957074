/**
 * Go's `math.Pow10` (10^n from two table values, so not always the correctly rounded 10^n),
 * `Logb`, `Round` and `RoundToEven` (Go math package; see core.ts for the licence).
 */

const POW10_SMALL = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27,
  1e28, 1e29, 1e30, 1e31,
];
const POW10_BIG = [1, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288];
const POW10_NEG = [1, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320];

/** Go `math.Pow10(n)`: 10^n from two table values (so not always the correctly rounded 10^n). */
export function pow10(n: number): number {
  if (n >= 0 && n <= 308) return POW10_BIG[Math.floor(n / 32)]! * POW10_SMALL[n % 32]!;
  if (n >= -323 && n <= 0) return POW10_NEG[Math.floor(-n / 32)]! / POW10_SMALL[-n % 32]!;
  return n > 0 ? Infinity : 0;
}

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

/** Go `math.Logb`: the binary exponent of x (−Inf for 0, +Inf for ±Inf, NaN for NaN). */
export function logb(x: number): number {
  if (x === 0) return -Infinity;
  if (!Number.isFinite(x)) return Number.isNaN(x) ? x : Infinity;
  let exp = 0;
  let v = Math.abs(x);
  if (v < 2.2250738585072014e-308) {
    v *= 2 ** 52; // normalise a subnormal
    exp = -52;
  }
  f64[0] = v;
  return Number((u64[0]! >> 52n) & 0x7ffn) - 1023 + exp;
}

/** Go `math.Round`: half away from zero (JS Math.round rounds -2.5 to -2). */
export function round(x: number): number {
  if (!Number.isFinite(x)) return x;
  const t = Math.trunc(x);
  return Math.abs(x - t) >= 0.5 ? t + Math.sign(x) : t;
}

/** Go `math.RoundToEven`: half to even. */
export function roundToEven(x: number): number {
  if (!Number.isFinite(x)) return x;
  const t = Math.trunc(x);
  const diff = Math.abs(x - t);
  if (diff > 0.5 || (diff === 0.5 && t % 2 !== 0)) return t + Math.sign(x);
  return t;
}
