/**
 * Go's `math.Sin`, `Cos`, `Tan` (Cephes sin.c/tan.c by Stephen L. Moshier, via Go's sin.go, tan.go,
 * trig_reduce.go: Payne–Hanek reduction for |x| ≥ 2^29). Translation of the Go standard library,
 * Copyright 2009 The Go Authors, BSD-3-Clause (see core.ts). Cephes notice, kept from Go's source:
 * "The readme file at http://netlib.sandia.gov/cephes/ says: Some software in this archive may be
 * from the book _Methods and Programs for Mathematical Functions_ (Prentice-Hall or Simon &
 * Schuster International, 1989) or from the Cephes Mathematical Library, a commercial product. In
 * either event, it is copyrighted by the author. What you see here may be used freely but it
 * comes with no support or guarantee."
 */
import { bits, fromBits } from "./core.ts";

const SIN = [
  1.5896230157654656806e-10, -2.50507477628578072866e-8, 2.75573136213857245213e-6, -1.98412698295895385996e-4, 8.33333333332211858878e-3,
  -1.66666666666666307295e-1,
];
const COS = [
  -1.135853652138768173e-11, 2.08757008419747316778e-9, -2.75573141792967388112e-7, 2.48015872888517045348e-5, -1.38888888888730564116e-3,
  4.16666666666665929218e-2,
];
const PI4A = 7.85398125648498535156e-1;
const PI4B = 3.77489470793079817668e-8;
const PI4C = 2.69515142907905952645e-15;
const FOUR_OVER_PI = 1.27323954473516268615107010698011489627567716592365;
const REDUCE_THRESHOLD = 2 ** 29;

const M_PI4 = [
  0x0000000000000001n,
  0x45f306dc9c882a53n,
  0xf84eafa3ea69bb81n,
  0xb6c52b3278872083n,
  0xfca2c757bd778ac3n,
  0x6e48dc74849ba5c0n,
  0x0c925dd413a32439n,
  0xfc3bd63962534e7dn,
  0xd1046bea5d768909n,
  0xd338e04d68befc82n,
  0x7323ac7306a673e9n,
  0x3908bf177bf25076n,
  0x3ff12fffbc0b301fn,
  0xde5e2316b414da3en,
  0xda6cfd9e4f96136en,
  0x9e8c7ecd3cbfd45an,
  0xea4f758fd7cbe2f6n,
  0x7a0e73ef14a525d4n,
  0xd7f6bf623f1aba10n,
  0xac06608df8f6d757n,
];

const U64 = (1n << 64n) - 1n;

/** Payne–Hanek reduction: octant j and the remainder z, for x ≥ 2^29. */
function trigReduce(x: number): [number, number] {
  const PI4 = Math.PI / 4;
  if (x < PI4) return [0, x];
  let ix = bits(x);
  const exp = Number((ix >> 52n) & 0x7ffn) - 1023 - 52;
  ix &= ~(0x7ffn << 52n);
  ix |= 1n << 52n;
  const digit = Math.floor((exp + 61) / 64);
  const bitshift = BigInt((exp + 61) % 64);
  const sh = (a: bigint, b: bigint) => ((a << bitshift) & U64) | (bitshift === 0n ? 0n : b >> (64n - bitshift));
  const z0 = sh(M_PI4[digit]!, M_PI4[digit + 1]!);
  const z1 = sh(M_PI4[digit + 1]!, M_PI4[digit + 2]!);
  const z2 = sh(M_PI4[digit + 2]!, M_PI4[digit + 3]!);
  const z2hi = (z2 * ix) >> 64n;
  const z1full = z1 * ix;
  const z1hi = z1full >> 64n;
  const z1lo = z1full & U64;
  const z0lo = (z0 * ix) & U64;
  const loSum = z1lo + z2hi;
  const lo = loSum & U64;
  const c = loSum >> 64n;
  let hi = (z0lo + z1hi + c) & U64;
  let j = hi >> 61n;
  hi = ((hi << 3n) & U64) | (lo >> 61n);
  const lz = BigInt(64 - hi.toString(2).length); // leading zeros (hi > 0 here)
  const e = BigInt(1023) - (lz + 1n);
  hi = ((hi << (lz + 1n)) & U64) | (lo >> (64n - (lz + 1n)));
  hi >>= 64n - 52n;
  hi |= e << 52n;
  let z = fromBits(hi);
  if ((j & 1n) === 1n) {
    j++;
    j &= 7n;
    z--;
  }
  return [Number(j), z * PI4];
}

function reduce(x: number, tan: boolean): [number, number] {
  if (x >= REDUCE_THRESHOLD) return trigReduce(x);
  let j = Math.trunc(x * FOUR_OVER_PI);
  let y = j;
  if ((j & 1) === 1) {
    j++;
    y++;
  }
  if (!tan) j &= 7;
  const z = x - y * PI4A - y * PI4B - y * PI4C;
  return [j, z];
}

function sinPoly(z: number, zz: number): number {
  return z + z * zz * (((((SIN[0]! * zz + SIN[1]!) * zz + SIN[2]!) * zz + SIN[3]!) * zz + SIN[4]!) * zz + SIN[5]!);
}

function cosPoly(zz: number): number {
  return 1.0 - 0.5 * zz + zz * zz * (((((COS[0]! * zz + COS[1]!) * zz + COS[2]!) * zz + COS[3]!) * zz + COS[4]!) * zz + COS[5]!);
}

/**
 * The octant step Go's Sin and Cos share (sin.go) for x ≥ 0: j folded into 0…3 (sin(x + π) = −sin x,
 * likewise cos), z the remainder, and whether the fold negates the result.
 */
function sinCosOctant(x: number): [j: number, z: number, negate: boolean] {
  const [j, z] = reduce(x, false);
  return j > 3 ? [j - 4, z, true] : [j, z, false];
}

/** Go `math.Cos`. */
export function cos(x0: number): number {
  if (!Number.isFinite(x0)) return NaN;
  const [j, z, negate] = sinCosOctant(Math.abs(x0));
  const zz = z * z;
  const y = j === 1 || j === 2 ? sinPoly(z, zz) : cosPoly(zz);
  const sign = j > 1 ? !negate : negate;
  return sign ? -y : y;
}

/** Go `math.Sin`. */
export function sin(x0: number): number {
  if (x0 === 0 || Number.isNaN(x0)) return x0;
  if (!Number.isFinite(x0)) return NaN;
  const [j, z, negate] = sinCosOctant(Math.abs(x0));
  const zz = z * z;
  const y = j === 1 || j === 2 ? cosPoly(zz) : sinPoly(z, zz);
  const sign = x0 < 0 ? !negate : negate;
  return sign ? -y : y;
}

const TAN_P = [-1.30936939181383777646e4, 1.1535166483858741614e6, -1.79565251976484877988e7];
const TAN_Q = [1.0, 1.36812963470692954678e4, -1.32089234440210967447e6, 2.50083801823357915839e7, -5.38695755929454629881e7];

/** Go `math.Tan`. */
export function tan(x0: number): number {
  if (x0 === 0 || Number.isNaN(x0)) return x0;
  if (!Number.isFinite(x0)) return NaN;
  let sign = false;
  let x = x0;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  const [j, z] = reduce(x, true);
  const zz = z * z;
  let y: number;
  if (zz > 1e-14) {
    y = z + z * ((zz * ((TAN_P[0]! * zz + TAN_P[1]!) * zz + TAN_P[2]!)) / ((((zz + TAN_Q[1]!) * zz + TAN_Q[2]!) * zz + TAN_Q[3]!) * zz + TAN_Q[4]!));
  } else {
    y = z;
  }
  if ((j & 2) === 2) y = -1 / y;
  return sign ? -y : y;
}
