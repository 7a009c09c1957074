/**
 * Go's float64 math, bit for bit, for the expression functions (ajson math.go calls Go's `math`
 * package). JavaScript engines compute `Math.sin`, `Math.exp`… with their own algorithms, which
 * differ from Go's in the last bit for many arguments; Go's results are observable (they reach the
 * component), so the functions are computed here with Go's algorithms and operation order.
 *
 * This folder is a TypeScript translation of parts of the Go standard library's `math` package
 * (https://go.dev/src/math/), Copyright 2009 The Go Authors, BSD-3-Clause licence (see
 * THIRD_PARTY.md beside this file); Go's files carry the notices of the FreeBSD msun / Sun fdlibm
 * and Cephes sources they derive from, kept in the files here. Not the SDK's code.
 *
 * On amd64 Go's `Exp` and `Log` are assembly (exp_amd64.s, log_amd64.s); `Exp` takes its FMA path
 * on CPUs with AVX and FMA (every x86-64-v3 machine), which this translation follows.
 */

const buf = new ArrayBuffer(8);
const f64 = new Float64Array(buf);
const u64 = new BigUint64Array(buf);

/** The IEEE-754 bits of a float64 (Go `math.Float64bits`). */
export function bits(x: number): bigint {
  f64[0] = x;
  return u64[0]!;
}

/** The float64 of IEEE-754 bits (Go `math.Float64frombits`). */
export function fromBits(b: bigint): number {
  u64[0] = BigInt.asUintN(64, b);
  return f64[0]!;
}

const SHIFT = 52n;
const MASK = 0x7ffn;
const BIAS = 1023;

/** Go `math.Copysign`. */
export function copysign(f: number, sign: number): number {
  const s = bits(sign) & (1n << 63n);
  return fromBits((bits(f) & ~(1n << 63n)) | s);
}

/** True for a negative sign bit (also -0). */
export function signbit(x: number): boolean {
  return (bits(x) & (1n << 63n)) !== 0n;
}

function normalize(x: number): [number, number] {
  if (Math.abs(x) < 2.2250738585072014e-308) return [x * 2 ** 52, -52];
  return [x, 0];
}

/** Go `math.Frexp`: frac in [½, 1) and exp with x = frac × 2^exp. */
export function frexp(f: number): [number, number] {
  if (f === 0 || !Number.isFinite(f)) return [f, 0];
  const [g, e0] = normalize(f);
  let x = bits(g);
  const exp = e0 + Number((x >> SHIFT) & MASK) - BIAS + 1;
  x &= ~(MASK << SHIFT);
  x |= BigInt(-1 + BIAS) << SHIFT;
  return [fromBits(x), exp];
}

/** Go `math.Ldexp`: frac × 2^exp. */
export function ldexp(frac0: number, exp0: number): number {
  if (frac0 === 0 || !Number.isFinite(frac0)) return frac0;
  const [frac, e] = normalize(frac0);
  let exp = exp0 + e;
  let x = bits(frac);
  exp += Number((x >> SHIFT) & MASK) - BIAS;
  if (exp < -1075) return copysign(0, frac);
  if (exp > 1023) return frac < 0 ? -Infinity : Infinity;
  let m = 1;
  if (exp < -1022) {
    exp += 53;
    m = 1 / 2 ** 53;
  }
  x &= ~(MASK << SHIFT);
  x |= BigInt(exp + BIAS) << SHIFT;
  return m * fromBits(x);
}

/** Go `int(x)` for a float64 in int32/int64 range: truncation toward zero. */
function toInt(x: number): number {
  return Math.trunc(x);
}

// ---- exact fused multiply-add (the FMA instructions of Go's amd64 Exp) -------------------------

/** A finite float64 as an exact rational m × 2^e (m an integer). */
function exact(x: number): [bigint, number] {
  const b = bits(x);
  const e = Number((b >> 52n) & 0x7ffn);
  let m = b & 0xfffffffffffffn;
  if (e !== 0) m |= 1n << 52n;
  if (b >> 63n !== 0n) m = -m;
  return [m, (e === 0 ? 1 : e) - 1075];
}

/** Rounds an exact m × 2^e to the nearest float64, ties to even. */
function roundToFloat(m: bigint, e: number): number {
  if (m === 0n) return 0;
  const neg = m < 0n;
  let a = neg ? -m : m;
  let len = a.toString(2).length;
  // Keep 53 significant bits (fewer for a subnormal result).
  let drop = len - 53;
  const minExp = -1074;
  if (e + drop < minExp) drop = minExp - e;
  if (drop > 0) {
    const dropped = a & ((1n << BigInt(drop)) - 1n);
    const half = 1n << BigInt(drop - 1);
    a >>= BigInt(drop);
    if (dropped > half || (dropped === half && (a & 1n) === 1n)) a += 1n;
    e += drop;
  }
  len = a.toString(2).length;
  const v = Number(a) * 2 ** e; // exact: a has ≤ 54 bits, scaling by a power of two
  return neg ? -v : v;
}

/** a × b + c with one rounding (x86 `VFMADD`), for finite arguments. */
export function fma(a: number, b: number, c: number): number {
  const [ma, ea] = exact(a);
  const [mb, eb] = exact(b);
  const [mc, ec] = exact(c);
  const mp = ma * mb;
  const ep = ea + eb;
  if (mp === 0n) return a * b + c;
  const e = Math.min(ep, ec);
  const sum = (mp << BigInt(ep - e)) + (mc << BigInt(ec - e));
  if (sum === 0n) return a * b + c; // signed zero as the plain operation gives it
  return roundToFloat(sum, e);
}

// ---- Exp (exp_amd64.s, FMA path), Log (log_amd64.s) ---------------------------------------------

const LN2U = 0.69314718055966295651160180568695068359375;
const LN2L = 0.28235290563031577122588448175013436025525412068e-12;
const LOG2E = 1.442695040888963407359924681001892;
const EXP_OVERFLOW = 7.09782712893384e2;
const T1 = 1.6666666666666666667e-1;
const T2 = 4.1666666666666666667e-2;
const T3 = 8.3333333333333333333e-3;
const T4 = 1.3888888888888888889e-3;
const T5 = 1.984126984126984127e-4;
const T6 = 2.4801587301587301587e-5;

/** Go `math.Exp` as amd64 computes it (SLEEF-derived, with FMA). */
export function exp(x: number): number {
  if (Number.isNaN(x) || x === Infinity) return x;
  if (x === -Infinity) return 0;
  if (x > EXP_OVERFLOW) return Infinity;
  // CVTSD2SL: round to nearest int32 (ties to even); out of range → 0x80000000.
  const p = LOG2E * x;
  let k = Math.abs(p) < 2 ** 31 ? roundHalfEven(p) : -(2 ** 31);
  const kf = k;
  let r = fma(-LN2U, kf, x);
  r = fma(-LN2L, kf, r);
  r *= 0.0625;
  let t = T6;
  t = fma(t, r, T5);
  t = fma(t, r, T4);
  t = fma(t, r, T3);
  t = fma(t, r, T2);
  t = fma(t, r, T1);
  t = fma(t, r, 0.5);
  t = fma(t, r, 1);
  r *= t;
  let s = 2 + r;
  r *= s;
  s = 2 + r;
  r *= s;
  s = 2 + r;
  r *= s;
  s = 2 + r;
  r = fma(r, s, 1);
  // ldexp by building 2^k (k + bias in (0, 0x7FF)), with the asm's denormal path.
  k += 0x3ff;
  if (k >= 0x7ff) return Infinity;
  if (k <= 0) {
    if (k < -52) return 0;
    const scale1 = fromBits(BigInt(k + 0x3fe) << 52n);
    return r * scale1 * fromBits(1n << 52n);
  }
  return r * fromBits(BigInt(k) << 52n);
}

function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

// fdlibm's ln 2 split (Go's Ln2Hi, Ln2Lo: Log, Log1p, Exp2, Expm1) and Log's L1…L7, which are also
// Log1p's Lp1…Lp7 (log.go, log1p.go: the same values).
const LN2HI = 6.9314718036912381649e-1;
const LN2LO = 1.90821492927058770002e-10;
const L1 = 6.66666666666673513e-1;
const L2 = 3.999999999940941908e-1;
const L3 = 2.857142874366239149e-1;
const L4 = 2.222219843214978396e-1;
const L5 = 1.818357216161805012e-1;
const L6 = 1.531383769920937332e-1;
const L7 = 1.479819860511658591e-1;

/** Go `math.Log` as amd64 computes it (log_amd64.s: fdlibm's algorithm, Frexp by bit masks). */
export function log(x: number): number {
  if (x === 0) return -Infinity;
  if (x < 0 || Number.isNaN(x)) return NaN;
  if (x === Infinity) return x;
  const b = bits(x);
  let f1 = fromBits((b & 0xfffffffffffffn) | 0x3fe0000000000000n);
  let k = Number((b >> 52n) & 0x7ffn) - 0x3fe;
  if (f1 < 7.07106781186547524401e-1) {
    k -= 1;
    f1 *= 2;
  }
  const f = f1 - 1;
  const s = f / (2 + f);
  const s2 = s * s;
  const s4 = s2 * s2;
  const t1 = s2 * (L1 + s4 * (L3 + s4 * (L5 + s4 * L7)));
  const t2 = s4 * (L2 + s4 * (L4 + s4 * L6));
  const R = t1 + t2;
  const hfsq = 0.5 * f * f;
  return k * LN2HI - (hfsq - (s * (hfsq + R) + k * LN2LO) - f);
}

/** Go `math.Log10`: Log(x) × (1/Ln10). */
export function log10(x: number): number {
  return log(x) * 0.43429448190325182765112891891660508229439700580366656611445378316586464920887077472922494933843174831870610674476630373364167928715896;
}

/** Go `math.Log2`: exact for powers of two, else Log(frac) × (1/Ln2) + exp. */
export function log2(x: number): number {
  const [frac, e] = frexp(x);
  if (frac === 0.5) return e - 1;
  return log(frac) * 1.44269504088896340735992468100189213742664595415298593413544940693110921918118507988552662289350634449699 + e;
}

function expmulti(hi: number, lo: number, k: number): number {
  const P1 = 1.66666666666666657415e-1;
  const P2 = -2.77777777770155933842e-3;
  const P3 = 6.61375632143793436117e-5;
  const P4 = -1.6533902205465251539e-6;
  const P5 = 4.13813679705723846039e-8;
  const r = hi - lo;
  const t = r * r;
  const c = r - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
  const y = 1 - (lo - (r * c) / (2 - c) - hi);
  return ldexp(y, k);
}

/** Go `math.Exp2` (pure Go on amd64). */
export function exp2(x: number): number {
  if (Number.isNaN(x)) return x;
  if (x > 1.0239999999999999e3) return Infinity;
  if (x < -1.074e3) return 0;
  let k = 0;
  if (x > 0) k = toInt(x + 0.5);
  else if (x < 0) k = toInt(x - 0.5);
  const t = x - k;
  const hi = t * LN2HI;
  const lo = -t * LN2LO;
  return expmulti(hi, lo, k);
}

/** Go `math.Expm1` (FreeBSD s_expm1.c). */
export function expm1(x0: number): number {
  let x = x0;
  const Othreshold = 7.09782712893383973096e2;
  const Ln2X56 = 3.88162421113569373274e1;
  const Ln2HalfX3 = 1.03972077083991796413;
  const Ln2Half = 3.46573590279972654709e-1;
  const InvLn2 = 1.442695040888963387;
  const Tiny = 1 / 2 ** 54;
  const Q1 = -3.33333333333331316428e-2;
  const Q2 = 1.58730158725481460165e-3;
  const Q3 = -7.93650757867487942473e-5;
  const Q4 = 4.00821782732936239552e-6;
  const Q5 = -2.01099218183624371326e-7;
  if (x === Infinity || Number.isNaN(x)) return x;
  if (x === -Infinity) return -1;
  let absx = x;
  let sign = false;
  if (x < 0) {
    absx = -absx;
    sign = true;
  }
  if (absx >= Ln2X56) {
    if (sign) return -1;
    if (absx >= Othreshold) return Infinity;
  }
  let c = 0;
  let k = 0;
  if (absx > Ln2Half) {
    let hi: number;
    let lo: number;
    if (absx < Ln2HalfX3) {
      if (!sign) {
        hi = x - LN2HI;
        lo = LN2LO;
        k = 1;
      } else {
        hi = x + LN2HI;
        lo = -LN2LO;
        k = -1;
      }
    } else {
      k = !sign ? toInt(InvLn2 * x + 0.5) : toInt(InvLn2 * x - 0.5);
      const t = k;
      hi = x - t * LN2HI;
      lo = t * LN2LO;
    }
    x = hi - lo;
    c = hi - x - lo;
  } else if (absx < Tiny) {
    return x;
  } else {
    k = 0;
  }
  const hfx = 0.5 * x;
  const hxs = x * hfx;
  const r1 = 1 + hxs * (Q1 + hxs * (Q2 + hxs * (Q3 + hxs * (Q4 + hxs * Q5))));
  let t = 3 - r1 * hfx;
  let e = hxs * ((r1 - t) / (6.0 - x * t));
  if (k === 0) return x - (x * e - hxs);
  e = x * (e - c) - c;
  e -= hxs;
  if (k === -1) return 0.5 * (x - e) - 0.5;
  if (k === 1) {
    if (x < -0.25) return -2 * (e - (x + 0.5));
    return 1 + 2 * (x - e);
  }
  if (k <= -2 || k > 56) {
    let y = 1 - (e - x);
    y = fromBits(bits(y) + (BigInt.asUintN(64, BigInt(k)) << 52n));
    return y - 1;
  }
  if (k < 20) {
    t = fromBits(0x3ff0000000000000n - (0x20000000000000n >> BigInt(k)));
    let y = t - (e - x);
    y = fromBits(bits(y) + (BigInt(k) << 52n));
    return y;
  }
  t = fromBits(BigInt(0x3ff - k) << 52n);
  let y = x - (e + t);
  y++;
  y = fromBits(bits(y) + (BigInt(k) << 52n));
  return y;
}

/** Go `math.Log1p` (FreeBSD s_log1p.c). */
export function log1p(x: number): number {
  const Sqrt2M1 = 4.142135623730950488017e-1;
  const Sqrt2HalfM1 = -2.928932188134524755992e-1;
  const Small = 1 / 2 ** 29;
  const Tiny = 1 / 2 ** 54;
  const Two53 = 2 ** 53;
  if (x < -1 || Number.isNaN(x)) return NaN;
  if (x === -1) return -Infinity;
  if (x === Infinity) return Infinity;
  const absx = Math.abs(x);
  let f = 0;
  let iu = 0n;
  let k = 1;
  if (absx < Sqrt2M1) {
    if (absx < Small) {
      if (absx < Tiny) return x;
      return x - x * x * 0.5;
    }
    if (x > Sqrt2HalfM1) {
      k = 0;
      f = x;
      iu = 1n;
    }
  }
  let c = 0;
  if (k !== 0) {
    let u: number;
    if (absx < Two53) {
      u = 1.0 + x;
      iu = bits(u);
      k = Number((iu >> 52n) - 1023n);
      c = k > 0 ? 1.0 - (u - x) : x - (u - 1.0);
      c /= u;
    } else {
      u = x;
      iu = bits(u);
      k = Number((iu >> 52n) - 1023n);
      c = 0;
    }
    iu &= 0x000fffffffffffffn;
    if (iu < 0x0006a09e667f3bcdn) {
      u = fromBits(iu | 0x3ff0000000000000n);
    } else {
      k++;
      u = fromBits(iu | 0x3fe0000000000000n);
      iu = (0x0010000000000000n - iu) >> 2n;
    }
    f = u - 1.0;
  }
  const hfsq = 0.5 * f * f;
  if (iu === 0n) {
    if (f === 0) {
      if (k === 0) return 0;
      c += k * LN2LO;
      return k * LN2HI + c;
    }
    const R = hfsq * (1.0 - 0.66666666666666666 * f);
    if (k === 0) return f - R;
    return k * LN2HI - (R - (k * LN2LO + c) - f);
  }
  const s = f / (2.0 + f);
  const z = s * s;
  const R = z * (L1 + z * (L2 + z * (L3 + z * (L4 + z * (L5 + z * (L6 + z * L7))))));
  if (k === 0) return f - (hfsq - s * (hfsq + R));
  return k * LN2HI - (hfsq - (s * (hfsq + R) + (k * LN2LO + c)) - f);
}
