/**
 * Go's float64 math functions, bit for bit (see core.ts): what ajson's numeric functions and the
 * `**` operator compute in a Go module.
 */
export { exp, exp2, expm1, log, log10, log1p, log2 } from "./core.ts";
export { acos, acosh, asin, asinh, atan, atanh, cbrt, cosh, sinh, tanh } from "./elementary.ts";
export { logb, pow10, round, roundToEven } from "./misc.ts";
export { erf, erfc, erfcinv, erfinv, gamma, j0, j1, pow, y0, y1 } from "./special.ts";
export { cos, sin, tan } from "./trig.ts";
