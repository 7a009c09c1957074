/**
 * Go's `math.Pow` (FreeBSD e_pow.c special cases, Go's own algorithm), `Gamma` (Cephes gamma.c),
 * `Erf`, `Erfc` (FreeBSD s_erf.c), `Erfinv`, `Erfcinv` (Giles' rational approximation, as
 * "Inverse of the floating-point error function" in Go), `J0`, `Y0`, `J1`, `Y1` (FreeBSD e_j0.c,
 * e_j1.c). Translation of the Go standard library's pow.go, gamma.go, erf.go, erfinv.go, j0.go,
 * j1.go — Copyright 2009 The Go Authors, BSD-3-Clause (see core.ts). The FreeBSD sources say:
 * "Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved. Developed at SunPro, a Sun
 * Microsystems, Inc. business. Permission to use, copy, modify, and distribute this software is
 * freely granted, provided that this notice is preserved." The Cephes notice is in trig.ts.
 */
import { bits, exp, frexp, fromBits, ldexp, log, signbit } from "./core.ts";
import { cos, sin } from "./trig.ts";

const LN2 = 0.693147180559945309417232121458176568075500134360255254120680009;
const INV_SQRT_PI = 0.56418958354775628694807945156077258584405062932899;
const TWO_OVER_PI = 0.63661977236758134307553505349005744813783858296183;
const MAX_FLOAT64 = 1.7976931348623157e308;
const TWO129 = 2 ** 129;

/** c[0] + z·(c[1] + z·(… + z·c[n−1])), Horner's rule in Go's operation order. */
function horner(c: readonly number[], z: number): number {
  let acc = c[c.length - 1]!;
  for (let i = c.length - 2; i >= 0; i--) acc = c[i]! + z * acc;
  return acc;
}

function isOddInt(x: number): boolean {
  if (Math.abs(x) >= 2 ** 53) return false;
  const xi = Math.trunc(x);
  return x - xi === 0 && Math.abs(xi % 2) === 1;
}

/** Go `math.Pow`. */
export function pow(x: number, y: number): number {
  if (y === 0 || x === 1) return 1;
  if (y === 1) return x;
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  if (x === 0) {
    if (y < 0) return signbit(x) && isOddInt(y) ? -Infinity : Infinity;
    if (y > 0) return signbit(x) && isOddInt(y) ? x : 0;
  }
  if (!Number.isFinite(y)) {
    if (x === -1) return 1;
    if (Math.abs(x) < 1 === (y === Infinity)) return 0;
    return Infinity;
  }
  if (!Number.isFinite(x)) {
    if (x === -Infinity) return pow(1 / x, -y);
    if (y < 0) return 0;
    if (y > 0) return Infinity;
  }
  if (y === 0.5) return Math.sqrt(x);
  if (y === -0.5) return 1 / Math.sqrt(x);
  const ay = Math.abs(y);
  let yi = Math.trunc(ay);
  let yf = ay - yi;
  if (yf !== 0 && x < 0) return NaN;
  if (yi >= 2 ** 63) {
    if (x === -1) return 1;
    if (Math.abs(x) < 1 === y > 0) return 0;
    return Infinity;
  }
  let a1 = 1.0;
  let ae = 0;
  if (yf !== 0) {
    if (yf > 0.5) {
      yf--;
      yi++;
    }
    a1 = exp(yf * log(x));
  }
  let [x1, xe] = frexp(x);
  for (let i = BigInt(yi); i !== 0n; i >>= 1n) {
    if (xe < -(1 << 12) || 1 << 12 < xe) {
      ae += xe;
      break;
    }
    if ((i & 1n) === 1n) {
      a1 *= x1;
      ae += xe;
    }
    x1 *= x1;
    xe <<= 1;
    if (x1 < 0.5) {
      x1 += x1;
      xe--;
    }
  }
  if (y < 0) {
    a1 = 1 / a1;
    ae = -ae;
  }
  return ldexp(a1, ae);
}

// ---- Gamma -------------------------------------------------------------------------------------

const GAM_P = [
  1.60119522476751861407e-4, 1.19135147006586384913e-3, 1.04213797561761569935e-2, 4.76367800457137231464e-2, 2.0744822764843597515e-1,
  4.94214826801497100753e-1, 9.99999999999999996796e-1,
];
const GAM_Q = [
  -2.31581873324120129819e-5, 5.39605580493303397842e-4, -4.45641913851797240494e-3, 1.18139785222060435552e-2, 3.58236398605498653373e-2,
  -2.34591795718243348568e-1, 7.14304917030273074085e-2, 1.0000000000000000032,
];
const GAM_S = [7.87311395793093628397e-4, -2.2954996161337812638e-4, -2.68132617805781232825e-3, 3.4722222160545866731e-3, 8.33333333333482257126e-2];

function stirling(x: number): [number, number] {
  if (x > 200) return [Infinity, 1];
  const SqrtTwoPi = 2.506628274631000502417;
  const MaxStirling = 143.01608;
  let w = 1 / x;
  w = 1 + w * ((((GAM_S[0]! * w + GAM_S[1]!) * w + GAM_S[2]!) * w + GAM_S[3]!) * w + GAM_S[4]!);
  let y1 = exp(x);
  let y2 = 1.0;
  if (x > MaxStirling) {
    const v = pow(x, 0.5 * x - 0.25);
    [y1, y2] = [v, v / y1];
  } else {
    y1 = pow(x, x - 0.5) / y1;
  }
  return [y1, SqrtTwoPi * w * y2];
}

function isNegInt(x: number): boolean {
  return x < 0 && x - Math.trunc(x) === 0;
}

/** Go `math.Gamma`. */
export function gamma(x0: number): number {
  const Euler = 0.57721566490153286060651209008240243104215933593992;
  let x = x0;
  if (isNegInt(x) || x === -Infinity || Number.isNaN(x)) return NaN;
  if (x === Infinity) return Infinity;
  if (x === 0) return signbit(x) ? -Infinity : Infinity;
  let q = Math.abs(x);
  let p = Math.floor(q);
  if (q > 33) {
    if (x >= 0) {
      const [y1, y2] = stirling(x);
      return y1 * y2;
    }
    let signgam = 1;
    if (BigInt(p) % 2n === 0n) signgam = -1;
    let z = q - p;
    if (z > 0.5) {
      p = p + 1;
      z = q - p;
    }
    z = q * sin(Math.PI * z);
    if (z === 0) return signgam * Infinity;
    const [sq1, sq2] = stirling(q);
    const absz = Math.abs(z);
    const d = absz * sq1 * sq2;
    z = Number.isFinite(d) ? Math.PI / d : Math.PI / absz / sq1 / sq2;
    return signgam * z;
  }
  let z = 1.0;
  while (x >= 3) {
    x = x - 1;
    z = z * x;
  }
  const small = (): number => (x === 0 ? Infinity : z / ((1 + Euler * x) * x));
  while (x < 0) {
    if (x > -1e-9) return small();
    z = z / x;
    x = x + 1;
  }
  while (x < 2) {
    if (x < 1e-9) return small();
    z = z / x;
    x = x + 1;
  }
  if (x === 2) return z;
  x = x - 2;
  p = (((((x * GAM_P[0]! + GAM_P[1]!) * x + GAM_P[2]!) * x + GAM_P[3]!) * x + GAM_P[4]!) * x + GAM_P[5]!) * x + GAM_P[6]!;
  q = ((((((x * GAM_Q[0]! + GAM_Q[1]!) * x + GAM_Q[2]!) * x + GAM_Q[3]!) * x + GAM_Q[4]!) * x + GAM_Q[5]!) * x + GAM_Q[6]!) * x + GAM_Q[7]!;
  return (z * p) / q;
}

// ---- Erf, Erfc ---------------------------------------------------------------------------------

const erx = 8.45062911510467529297e-1;
const efx = 1.28379167095512586316e-1;
const efx8 = 1.02703333676410069053;
// The rational approximations of erf.go, Go's coefficients in order: pp0…pp4 / qq1…qq5 (|x| < 0.84375),
// pa0…pa6 / qa1…qa6 (0.84375 ≤ |x| < 1.25), ra0…ra7 / sa1…sa8 (1.25 ≤ |x| < 1/0.35), rb0…rb6 / sb1…sb7 (beyond).
const ERF_PP = [1.28379167095512558561e-1, -3.2504210724700149937e-1, -2.84817495755985104766e-2, -5.77027029648944159157e-3, -2.37630166566501626084e-5];
const ERF_QQ = [3.97917223959155352819e-1, 6.50222499887672944485e-2, 5.08130628187576562776e-3, 1.32494738004321644526e-4, -3.9602282787753681232e-6];
const ERF_PA = [
  -2.36211856075265944077e-3, 4.14856118683748331666e-1, -3.72207876035701323847e-1, 3.18346619901161753674e-1, -1.10894694282396677476e-1,
  3.54783043256182359371e-2, -2.166375594868790843e-3,
];
const ERF_QA = [
  1.06420880400844228286e-1, 5.40397917702171048937e-1, 7.18286544141962662868e-2, 1.26171219808761642112e-1, 1.36370839120290507362e-2,
  1.1984499846799107417e-2,
];
const ERF_RA = [
  -9.86494403484714822705e-3, -6.93858572707181764372e-1, -1.05586262253232909814e1, -6.23753324503260060396e1, -1.62396669462573470355e2,
  -1.84605092906711035994e2, -8.12874355063065934246e1, -9.81432934416914548592,
];
const ERF_SA = [
  1.96512716674392571292e1, 1.376577541435190426e2, 4.34565877475229228821e2, 6.45387271733267880336e2, 4.29008140027567833386e2, 1.08635005541779435134e2,
  6.57024977031928170135, -6.04244152148580987438e-2,
];
const ERF_RB = [
  -9.86494292470009928597e-3, -7.99283237680523006574e-1, -1.77579549177547519889e1, -1.60636384855821916062e2, -6.37566443368389627722e2,
  -1.02509513161107724954e3, -4.83519191608651397019e2,
];
const ERF_SB = [
  3.03380607434824582924e1, 3.25792512996573918826e2, 1.53672958608443695994e3, 3.19985821950859553908e3, 2.55305040643316442583e3, 4.74528541206955367215e2,
  -2.24409524465858183362e1,
];
const ONE_OVER_035 = 2.857142857142857142857142857142857142857;

/** erf(x) ≈ x + x·(r/s) for |x| < 0.84375: the r/s of Go's Erf and Erfc (erf.go), z = x². */
function erfSmallRatio(z: number): number {
  return horner(ERF_PP, z) / (1 + z * horner(ERF_QQ, z));
}

/** erf(x) ≈ erx + P/Q for 0.84375 ≤ |x| < 1.25: the P/Q of Go's Erf and Erfc (erf.go), s = |x| − 1. */
function erfNearOneRatio(s: number): number {
  return horner(ERF_PA, s) / (1 + s * horner(ERF_QA, s));
}

function erfTail(x: number, s: number, small: boolean): number {
  const R = horner(small ? ERF_RA : ERF_RB, s);
  const S = 1 + s * horner(small ? ERF_SA : ERF_SB, s);
  const z = fromBits(bits(x) & 0xffffffff00000000n);
  return exp(-z * z - 0.5625) * exp((z - x) * (z + x) + R / S);
}

/** Go `math.Erf`. */
export function erf(x0: number): number {
  const VeryTiny = 2.848094538889218e-306;
  const Small = 1 / 2 ** 28;
  if (Number.isNaN(x0)) return NaN;
  if (x0 === Infinity) return 1;
  if (x0 === -Infinity) return -1;
  let x = x0;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  if (x < 0.84375) {
    let temp: number;
    if (x < Small) {
      temp = x < VeryTiny ? 0.125 * (8.0 * x + efx8 * x) : x + efx * x;
    } else {
      const y = erfSmallRatio(x * x);
      temp = x + x * y;
    }
    return sign ? -temp : temp;
  }
  if (x < 1.25) {
    const pq = erfNearOneRatio(x - 1);
    return sign ? -erx - pq : erx + pq;
  }
  if (x >= 6) return sign ? -1 : 1;
  const s = 1 / (x * x);
  const r = erfTail(x, s, x < ONE_OVER_035);
  return sign ? r / x - 1 : 1 - r / x;
}

/** Go `math.Erfc`. */
export function erfc(x0: number): number {
  const Tiny = 1 / 2 ** 56;
  if (Number.isNaN(x0)) return NaN;
  if (x0 === Infinity) return 0;
  if (x0 === -Infinity) return 2;
  let x = x0;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  if (x < 0.84375) {
    let temp: number;
    if (x < Tiny) temp = x;
    else {
      const y = erfSmallRatio(x * x);
      temp = x < 0.25 ? x + x * y : 0.5 + (x * y + (x - 0.5));
    }
    return sign ? 1 + temp : 1 - temp;
  }
  if (x < 1.25) {
    const pq = erfNearOneRatio(x - 1);
    return sign ? 1 + erx + pq : 1 - erx - pq;
  }
  if (x < 28) {
    const s = 1 / (x * x);
    const smallRange = x < ONE_OVER_035;
    if (!smallRange && sign && x > 6) return 2;
    const r = erfTail(x, s, smallRange);
    return sign ? 2 - r / x : r / x;
  }
  return sign ? 2 : 0;
}

const EA = [
  1.1975323115670912564578, 4.7072688112383978012285e1, 6.9706266534389598238465e2, 4.8548868893843886794648e3, 1.6235862515167575384252e4,
  2.3782041382114385731252e4, 1.1819493347062294404278e4, 8.87094069625455148302e2,
];
const EB = [
  1.0, 4.2313330701600911252e1, 6.871870074920579083e2, 5.3941960214247511077e3, 2.1213794301586595867e4, 3.930789580009271061e4, 2.8729085735721942674e4,
  5.226495278852854561e3,
];
const EC = [
  1.42343711074968357734, 4.6303378461565452959, 5.7694972214606914055, 3.64784832476320460504, 1.27045825245236838258, 2.4178072517745061177e-1,
  2.27238449892691845833e-2, 7.7454501427834140764e-4,
];
const ED = [
  1.4142135623730950488016887, 2.9036514445419946173133295, 2.3707661626024532365971225, 9.7547832001787427186894837e-1, 2.0945065210512749128288442e-1,
  2.1494160384252876777097297e-2, 7.7441459065157709165577218e-4, 1.4859850019840355905497876e-9,
];
const EE = [
  6.6579046435011037772, 5.4637849111641143699, 1.7848265399172913358, 2.9656057182850489123e-1, 2.6532189526576123093e-2, 1.2426609473880784386e-3,
  2.71155556874348757815e-5, 2.01033439929228813265e-7,
];
const EF = [
  1.414213562373095048801689, 8.482908416595164588112026e-1, 1.936480946950659106176712e-1, 2.103693768272068968719679e-2, 1.112800997078859844711555e-3,
  2.61108840508059362513802e-5, 2.010321207683943062279931e-7, 2.891024605872965461538222e-15,
];

/** Go `math.Erfinv`. */
export function erfinv(x0: number): number {
  if (Number.isNaN(x0) || x0 <= -1 || x0 >= 1) {
    if (x0 === -1 || x0 === 1) return x0 * Infinity;
    return NaN;
  }
  let x = x0;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  let ans: number;
  if (x <= 0.85) {
    const r = 0.180625 - 0.25 * x * x;
    ans = (x * horner(EA, r)) / horner(EB, r);
  } else {
    let r = Math.sqrt(LN2 - log(1.0 - x));
    if (r <= 5.0) {
      r -= 1.6;
      ans = horner(EC, r) / horner(ED, r);
    } else {
      r -= 5.0;
      ans = horner(EE, r) / horner(EF, r);
    }
  }
  return sign ? -ans : ans;
}

/** Go `math.Erfcinv`: Erfinv(1 − x). */
export function erfcinv(x: number): number {
  return erfinv(1 - x);
}

// ---- Bessel functions J0, Y0, J1, Y1 -----------------------------------------------------------

const P0R8 = [0.0, -7.03124999999900357484e-2, -8.08167041275349795626, -2.57063105679704847262e2, -2.48521641009428822144e3, -5.25304380490729545272e3];
const P0S8 = [1.16534364619668181717e2, 3.83374475364121826715e3, 4.05978572648472545552e4, 1.16752972564375915681e5, 4.76277284146730962675e4];
const P0R5 = [
  -1.14125464691894502584e-11, -7.03124940873599280078e-2, -4.15961064470587782438, -6.76747652265167261021e1, -3.31231299649172967747e2,
  -3.46433388365604912451e2,
];
const P0S5 = [6.07539382692300335975e1, 1.05125230595704579173e3, 5.97897094333855784498e3, 9.62544514357774460223e3, 2.40605815922939109441e3];
const P0R3 = [
  -2.5470460177195191562e-9, -7.03119616381481654654e-2, -2.40903221549529611423, -2.19659774734883086467e1, -5.80791704701737572236e1,
  -3.14479470594888503854e1,
];
const P0S3 = [3.58560338055209726349e1, 3.6151398305030386382e2, 1.1936078379211153333e3, 1.12799679856907414432e3, 1.73580930813335754692e2];
const P0R2 = [
  -8.87534333032526411254e-8, -7.03030995483624743247e-2, -1.45073846780952986357, -7.63569613823527770791, -1.11931668860356747786e1, -3.23364579351335335033,
];
const P0S2 = [2.22202997532088808441e1, 1.36206794218215208048e2, 2.70470278658083486789e2, 1.53875394208320329881e2, 1.4657617694825619381e1];
const Q0R8 = [0.0, 7.32421874999935051953e-2, 1.17682064682252693899e1, 5.57673380256401856059e2, 8.85919720756468632317e3, 3.70146267776887834771e4];
const Q0S8 = [
  1.63776026895689824414e2, 8.09834494656449805916e3, 1.42538291419120476348e5, 8.03309257119514397345e5, 8.40501579819060512818e5, -3.43899293537866615225e5,
];
const Q0R5 = [
  1.84085963594515531381e-11, 7.32421766612684765896e-2, 5.83563508962056953777, 1.35111577286449829671e2, 1.02724376596164097464e3, 1.98997785864605384631e3,
];
const Q0S5 = [
  8.27766102236537761883e1, 2.07781416421392987104e3, 1.8847288778571808507e4, 5.67511122894947329769e4, 3.59767538425114471465e4, -5.35434275601944773371e3,
];
const Q0R3 = [
  4.37741014089738620906e-9, 7.32411180042911447163e-2, 3.34423137516170720929, 4.26218440745412650017e1, 1.70808091340565596283e2, 1.66733948696651168575e2,
];
const Q0S3 = [
  4.87588729724587182091e1, 7.09689221056606015736e2, 3.70414822620111362994e3, 6.46042516752568917582e3, 2.51633368920368957333e3, -1.49247451836156386662e2,
];
const Q0R2 = [
  1.50444444886983272379e-7, 7.32234265963079278272e-2, 1.99819174093815998816, 1.44956029347885735348e1, 3.16662317504781540833e1, 1.62527075710929267416e1,
];
const Q0S2 = [
  3.03655848355219184498e1, 2.69348118608049844624e2, 8.44783757595320139444e2, 8.82935845112488550512e2, 2.12666388511798828631e2, -5.31095493882666946917,
];
const P1R8 = [0.0, 1.1718749999998864797e-1, 1.32394806593073575129e1, 4.12051854307378562225e2, 3.87474538913960532227e3, 7.91447954031891731574e3];
const P1S8 = [1.14207370375678408436e2, 3.65093083420853463394e3, 3.69562060269033463555e4, 9.76027935934950801311e4, 3.08042720627888811578e4];
const P1R5 = [
  1.31990519556243522749e-11, 1.17187493190614097638e-1, 6.80275127868432871736, 1.08308182990189109773e2, 5.17636139533199752805e2, 5.28715201363337541807e2,
];
const P1S5 = [5.92805987221131331921e1, 9.91401418733614377743e2, 5.35326695291487976647e3, 7.84469031749551231769e3, 1.50404688810361062679e3];
const P1R3 = [
  3.02503916137373618024e-9, 1.17186865567253592491e-1, 3.9329775003331564065, 3.51194035591636932736e1, 9.10550110750781271918e1, 4.85590685197364919645e1,
];
const P1S3 = [3.47913095001251519989e1, 3.36762458747825746741e2, 1.04687139975775130551e3, 8.90811346398256432622e2, 1.03787932439639277504e2];
const P1R2 = [
  1.07710830106873743082e-7, 1.17176219462683348094e-1, 2.36851496667608785174, 1.22426109148261232917e1, 1.7693971127168772739e1, 5.0735231258881849925,
];
const P1S2 = [2.14364859363821409488e1, 1.2529022716840275109e2, 2.32276469057162813669e2, 1.17679373287147100768e2, 8.36463893371618283368];
const Q1R8 = [0.0, -1.02539062499992714161e-1, -1.62717534544589987888e1, -7.59601722513950107896e2, -1.18498066702429587167e4, -4.8438512428575035301e4];
const Q1S8 = [
  1.61395369700722909556e2, 7.82538599923348465381e3, 1.33875336287249578163e5, 7.19657723683240939863e5, 6.66601232617776375264e5, -2.94490264303834643215e5,
];
const Q1R5 = [
  -2.08979931141764104297e-11, -1.02539050241375426231e-1, -8.0564482812393602984, -1.83669607474888380239e2, -1.37319376065508163265e3,
  -2.61244440453215656817e3,
];
const Q1S5 = [
  8.12765501384335777857e1, 1.99179873460485964642e3, 1.74684851924908907677e4, 4.98514270910352279316e4, 2.7948075163891811826e4, -4.71918354795128470869e3,
];
const Q1R3 = [
  -5.07831226461766561369e-9, -1.02537829820837089745e-1, -4.61011581139473403113, -5.78472216562783643212e1, -2.28244540737631695038e2,
  -2.19210128478909325622e2,
];
const Q1S3 = [
  4.76651550323729509273e1, 6.73865112676699709482e2, 3.38015286679526343505e3, 5.54772909720722782367e3, 1.90311919338810798763e3, -1.35201191444307340817e2,
];
const Q1R2 = [
  -1.78381727510958865572e-7, -1.0251704260798555346e-1, -2.7522056827818746072, -1.96636162643703720221e1, -4.23253133372830490089e1,
  -2.13719211703704061733e1,
];
const Q1S2 = [
  2.95333629060523854548e1, 2.52981549982190529136e2, 7.57502834868645436472e2, 7.39393205320467245656e2, 1.55949003336666123687e2, -4.95949898822628210127,
];

type Table6 = readonly number[];

function pick(x: number, r8: Table6, r5: Table6, r3: Table6, r2: Table6): Table6 {
  return x >= 8 ? r8 : x >= 4.5454 ? r5 : x >= 2.8571 ? r3 : r2;
}

/** r/s of the asymptotic P and Q series of pzero, qzero (j0.go) and pone, qone (j1.go), in z = 1/x². */
function asymptoticRatio(x: number, p: Table6, q: readonly number[]): number {
  const z = 1 / (x * x);
  return horner(p, z) / (1 + z * horner(q, z));
}

function pzero(x: number): number {
  return 1 + asymptoticRatio(x, pick(x, P0R8, P0R5, P0R3, P0R2), pick(x, P0S8, P0S5, P0S3, P0S2));
}

function qzero(x: number): number {
  return (-0.125 + asymptoticRatio(x, pick(x, Q0R8, Q0R5, Q0R3, Q0R2), pick(x, Q0S8, Q0S5, Q0S3, Q0S2))) / x;
}

function pone(x: number): number {
  return 1 + asymptoticRatio(x, pick(x, P1R8, P1R5, P1R3, P1R2), pick(x, P1S8, P1S5, P1S3, P1S2));
}

function qone(x: number): number {
  return (0.375 + asymptoticRatio(x, pick(x, Q1R8, Q1R5, Q1R3, Q1R2), pick(x, Q1S8, Q1S5, Q1S3, Q1S2))) / x;
}

/**
 * ss = sin(x) − cos(x) and cc = sin(x) + cos(x) for x ≥ 2, the one that cancels taken from
 * −cos(2x) = ss·cc instead (Go's J0 and Y0, j0.go).
 */
function j0Phase(x: number): [ss: number, cc: number] {
  const s = sin(x);
  const c = cos(x);
  let ss = s - c;
  let cc = s + c;
  if (x < MAX_FLOAT64 / 2) {
    const z = -cos(x + x);
    if (s * c < 0) cc = z / ss;
    else ss = z / cc;
  }
  return [ss, cc];
}

/**
 * ss = −sin(x) − cos(x) and cc = sin(x) − cos(x) for x ≥ 2, the one that cancels taken from
 * cos(2x) = ss·cc instead (Go's J1 and Y1, j1.go).
 */
function j1Phase(x: number): [ss: number, cc: number] {
  const s = sin(x);
  const c = cos(x);
  let ss = -s - c;
  let cc = s - c;
  if (x < MAX_FLOAT64 / 2) {
    const z = cos(x + x);
    if (s * c > 0) cc = z / ss;
    else ss = z / cc;
  }
  return [ss, cc];
}

// The small-x rational approximations, Go's constants in order (j0.go: R02…R05, S01…S04 of J0,
// U00…U06, V01…V04 of Y0; j1.go: R00…R03, S01…S05 of J1, U00…U04, V00…V04 of Y1).
const J0_R = [1.56249999999999947958e-2, -1.89979294238854721751e-4, 1.8295404953270066567e-6, -4.61832688532103189199e-9];
const J0_S = [1.56191029464890010492e-2, 1.1692678466333745026e-4, 5.13546550207318111446e-7, 1.16614003333790000205e-9];
const Y0_U = [
  -7.38042951086872317523e-2, 1.76666452509181115538e-1, -1.38185671945596898896e-2, 3.47453432093683650238e-4, -3.81407053724364161125e-6,
  1.95590137035022920206e-8, -3.98205194132103398453e-11,
];
const Y0_V = [1.27304834834123699328e-2, 7.60068627350353253702e-5, 2.59150851840457805467e-7, 4.41110311332675467403e-10];
const J1_R = [-6.25e-2, 1.40705666955189706048e-3, -1.5995563108403559752e-5, 4.96727999609584448412e-8];
const J1_S = [1.91537599538363460805e-2, 1.8594678558863091556e-4, 1.17718464042623683263e-6, 5.04636257076217042715e-9, 1.23542274426137913908e-11];
const Y1_U = [-1.96057090646238940668e-1, 5.04438716639811282616e-2, -1.91256895875763547298e-3, 2.35252600561610495928e-5, -9.19099158039878874504e-8];
const Y1_V = [1.99167318236649903973e-2, 2.02552581025135171496e-4, 1.35608801097516229404e-6, 6.22741452364621501295e-9, 1.66559246207992079114e-11];

/** Go `math.J0`. */
export function j0(x0: number): number {
  const TwoM27 = 1 / 2 ** 27;
  const TwoM13 = 1 / 2 ** 13;
  if (Number.isNaN(x0)) return x0;
  if (!Number.isFinite(x0)) return 0;
  if (x0 === 0) return 1;
  const x = Math.abs(x0);
  if (x >= 2) {
    const [ss, cc] = j0Phase(x);
    if (x > TWO129) return (INV_SQRT_PI * cc) / Math.sqrt(x);
    return (INV_SQRT_PI * (pzero(x) * cc - qzero(x) * ss)) / Math.sqrt(x);
  }
  if (x < TwoM13) {
    if (x < TwoM27) return 1;
    return 1 - 0.25 * x * x;
  }
  const z = x * x;
  const r = z * horner(J0_R, z);
  const s = 1 + z * horner(J0_S, z);
  if (x < 1) return 1 + z * (-0.25 + r / s);
  const u = 0.5 * x;
  return (1 + u) * (1 - u) + z * (r / s);
}

/** Go `math.Y0`. */
export function y0(x: number): number {
  const TwoM27 = 1 / 2 ** 27;
  if (x < 0 || Number.isNaN(x)) return NaN;
  if (x === Infinity) return 0;
  if (x === 0) return -Infinity;
  if (x >= 2) {
    const [ss, cc] = j0Phase(x);
    if (x > TWO129) return (INV_SQRT_PI * ss) / Math.sqrt(x);
    return (INV_SQRT_PI * (pzero(x) * ss + qzero(x) * cc)) / Math.sqrt(x);
  }
  if (x <= TwoM27) return Y0_U[0]! + TWO_OVER_PI * log(x);
  const z = x * x;
  const u = horner(Y0_U, z);
  const v = 1 + z * horner(Y0_V, z);
  return u / v + TWO_OVER_PI * j0(x) * log(x);
}

/** Go `math.J1`. */
export function j1(x0: number): number {
  const TwoM27 = 1 / 2 ** 27;
  if (Number.isNaN(x0)) return x0;
  if (!Number.isFinite(x0) || x0 === 0) return 0;
  let x = x0;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  if (x >= 2) {
    const [ss, cc] = j1Phase(x);
    const z = x > TWO129 ? (INV_SQRT_PI * cc) / Math.sqrt(x) : (INV_SQRT_PI * (pone(x) * cc - qone(x) * ss)) / Math.sqrt(x);
    return sign ? -z : z;
  }
  if (x < TwoM27) return 0.5 * x;
  let z = x * x;
  let r = z * horner(J1_R, z);
  const s = 1.0 + z * horner(J1_S, z);
  r *= x;
  z = 0.5 * x + r / s;
  return sign ? -z : z;
}

/** Go `math.Y1`. */
export function y1(x: number): number {
  const TwoM54 = 1 / 2 ** 54;
  if (x < 0 || Number.isNaN(x)) return NaN;
  if (x === Infinity) return 0;
  if (x === 0) return -Infinity;
  if (x >= 2) {
    const [ss, cc] = j1Phase(x);
    if (x > TWO129) return (INV_SQRT_PI * ss) / Math.sqrt(x);
    return (INV_SQRT_PI * (pone(x) * ss + qone(x) * cc)) / Math.sqrt(x);
  }
  if (x <= TwoM54) return -TWO_OVER_PI / x;
  const z = x * x;
  const u = horner(Y1_U, z);
  const v = 1 + z * horner(Y1_V, z);
  return x * (u / v) + TWO_OVER_PI * (j1(x) * log(x) - 1 / x);
}
