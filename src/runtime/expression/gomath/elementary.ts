/**
 * Go's `math.Asin`, `Acos`, `Atan` (Cephes atan.c), `Sinh`, `Cosh`, `Tanh` (Cephes), `Asinh`,
 * `Acosh`, `Atanh` and `Cbrt` (FreeBSD msun s_asinh.c, e_acosh.c, e_atanh.c, s_cbrt.c; "Copyright
 * (C) 1993 by Sun Microsystems, Inc. All rights reserved. Developed at SunSoft, a Sun Microsystems,
 * Inc. business. Permission to use, copy, modify, and distribute this software is freely granted,
 * provided that this notice is preserved."). Translation of the Go standard library's asin.go,
 * atan.go, sinh.go, tanh.go, asinh.go, acosh.go, atanh.go, cbrt.go — Copyright 2009 The Go
 * Authors, BSD-3-Clause (see core.ts).
 */
import { bits, exp, fromBits, log, log1p } from "./core.ts";

const PI_2 = Math.PI / 2;
const PI_4 = Math.PI / 4;

function xatan(x: number): number {
  const P0 = -8.750608600031904122785e-1;
  const P1 = -1.615753718733365076637e1;
  const P2 = -7.50085579231470466734e1;
  const P3 = -1.22886668449013617341e2;
  const P4 = -6.485021904942025371773e1;
  const Q0 = 2.485846490142306297962e1;
  const Q1 = 1.650270098316988542046e2;
  const Q2 = 4.328810604912902668951e2;
  const Q3 = 4.853903996359136964868e2;
  const Q4 = 1.945506571482613964425e2;
  let z = x * x;
  z = (z * ((((P0 * z + P1) * z + P2) * z + P3) * z + P4)) / (((((z + Q0) * z + Q1) * z + Q2) * z + Q3) * z + Q4);
  z = x * z + x;
  return z;
}

function satan(x: number): number {
  const Morebits = 6.12323399573676588613e-17;
  const Tan3pio8 = 2.4142135623730950488;
  if (x <= 0.66) return xatan(x);
  if (x > Tan3pio8) return PI_2 - xatan(1 / x) + Morebits;
  return PI_4 + xatan((x - 1) / (x + 1)) + 0.5 * Morebits;
}

/** Go `math.Atan`. */
export function atan(x: number): number {
  if (x === 0) return x;
  return x > 0 ? satan(x) : -satan(-x);
}

/** Go `math.Asin`. */
export function asin(x0: number): number {
  if (x0 === 0) return x0;
  let x = x0;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  if (x > 1) return NaN;
  let temp = Math.sqrt(1 - x * x);
  temp = x > 0.7 ? PI_2 - satan(temp / x) : satan(x / temp);
  return sign ? -temp : temp;
}

/** Go `math.Acos`: π/2 − Asin(x). */
export function acos(x: number): number {
  return PI_2 - asin(x);
}

/** Go `math.Sinh`. */
export function sinh(x0: number): number {
  const P0 = -0.6307673640497716991184787251e6;
  const P1 = -0.8991272022039509355398013511e5;
  const P2 = -0.2894211355989563807284660366e4;
  const P3 = -0.2630563213397497062819489e2;
  const Q0 = -0.6307673640497716991212077277e6;
  const Q1 = 0.1521517378790019070696485176e5;
  const Q2 = -0.173678953558233699533450911e3;
  let x = x0;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  let temp: number;
  if (x > 21) temp = exp(x) * 0.5;
  else if (x > 0.5) {
    const ex = exp(x);
    temp = (ex - 1 / ex) * 0.5;
  } else {
    const sq = x * x;
    temp = (((P3 * sq + P2) * sq + P1) * sq + P0) * x;
    temp = temp / (((sq + Q2) * sq + Q1) * sq + Q0);
  }
  return sign ? -temp : temp;
}

/** Go `math.Cosh`. */
export function cosh(x0: number): number {
  const x = Math.abs(x0);
  if (x > 21) return exp(x) * 0.5;
  const ex = exp(x);
  return (ex + 1 / ex) * 0.5;
}

/** Go `math.Tanh`. */
export function tanh(x: number): number {
  const MAXLOG = 8.8029691931113054295988e1;
  const P = [-9.64399179425052238628e-1, -9.92877231001918586564e1, -1.61468768441708447952e3];
  const Q = [1.12811678491632931402e2, 2.23548839060100448583e3, 4.84406305325125486048e3];
  let z = Math.abs(x);
  if (z > 0.5 * MAXLOG) return x < 0 ? -1 : 1;
  if (z >= 0.625) {
    const s = exp(2 * z);
    z = 1 - 2 / (s + 1);
    return x < 0 ? -z : z;
  }
  if (x === 0) return x;
  const s = x * x;
  return x + (x * s * ((P[0]! * s + P[1]!) * s + P[2]!)) / (((s + Q[0]!) * s + Q[1]!) * s + Q[2]!);
}

const LN2 = 6.93147180559945286227e-1;

/** Go `math.Asinh`. */
export function asinh(x0: number): number {
  const NearZero = 1 / 2 ** 28;
  const Large = 2 ** 28;
  if (!Number.isFinite(x0)) return x0;
  let x = x0;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  let temp: number;
  if (x > Large) temp = log(x) + LN2;
  else if (x > 2) temp = log(2 * x + 1 / (Math.sqrt(x * x + 1) + x));
  else if (x < NearZero) temp = x;
  else temp = log1p(x + (x * x) / (1 + Math.sqrt(1 + x * x)));
  return sign ? -temp : temp;
}

/** Go `math.Acosh`. */
export function acosh(x: number): number {
  const Large = 2 ** 28;
  if (x < 1 || Number.isNaN(x)) return NaN;
  if (x === 1) return 0;
  if (x >= Large) return log(x) + LN2;
  if (x > 2) return log(2 * x - 1 / (x + Math.sqrt(x * x - 1)));
  const t = x - 1;
  return log1p(t + Math.sqrt(2 * t + t * t));
}

/** Go `math.Atanh`. */
export function atanh(x0: number): number {
  const NearZero = 1 / 2 ** 28;
  if (x0 < -1 || x0 > 1 || Number.isNaN(x0)) return NaN;
  if (x0 === 1) return Infinity;
  if (x0 === -1) return -Infinity;
  let x = x0;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  let temp: number;
  if (x < NearZero) temp = x;
  else if (x < 0.5) {
    temp = x + x;
    temp = 0.5 * log1p(temp + (temp * x) / (1 - x));
  } else temp = 0.5 * log1p((x + x) / (1 - x));
  return sign ? -temp : temp;
}

/** Go `math.Cbrt`. */
export function cbrt(x0: number): number {
  const B1 = 715094163n;
  const B2 = 696219795n;
  const C = 5.42857142857142815906e-1;
  const D = -7.0530612244897961105e-1;
  const E = 1.41428571428571436819;
  const F = 1.6071428571428572063;
  const G = 3.57142857142857150787e-1;
  const SmallestNormal = 2.22507385850720138309e-308;
  if (x0 === 0 || !Number.isFinite(x0)) return x0;
  let x = x0;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  let t = fromBits(bits(x) / 3n + (B1 << 32n));
  if (x < SmallestNormal) {
    t = 2 ** 54;
    t *= x;
    t = fromBits(bits(t) / 3n + (B2 << 32n));
  }
  let r = (t * t) / x;
  let s = C + r * t;
  t *= G + F / (s + E + D / s);
  t = fromBits((bits(t) & (0xffffffffcn << 28n)) + (1n << 30n));
  s = t * t;
  r = x / s;
  const w = t + t;
  r = (r - t) / (w + r);
  t = t + t * r;
  return sign ? -t : t;
}
