/**
 * Go's `%v` for a float64 (fmt `%g` with the shortest digits, strconv `FormatFloat(x, 'g', -1, 64)`):
 * the SDK prints durations (`"%vs"`) and `string(x)` this way (pkg/evaluator/functions.go), and Go
 * interpolation would too. With the shortest digits strconv switches to the exponent form when
 * the decimal exponent is < -4 or >= 6 (its `eprec = 6` for shortest): 100000 → `100000`,
 * 1000000 → `1e+06`, 123456789 → `1.23456789e+08`, 0.0001 → `0.0001`, 0.00001 → `1e-05`
 * (recorded Go cases str-381, str-419, fn-193..195).
 */

/**
 * Formats like Go's `fmt.Sprintf("%v", x)` for a float64: `3`, `1.5`, `1e+06`, `1.23456789e+08`,
 * `1e-05`, `NaN`, `+Inf`, `-Inf`, `-0`.
 */
export function formatGoFloat(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "+Inf";
  if (x === -Infinity) return "-Inf";
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  // Decimal exponent in [-4, 6): Go prints the shortest digits in fixed notation, as JS does.
  const ax = Math.abs(x);
  if (ax >= 1e-4 && ax < 1e6) return String(x);
  // Shortest round-trip digits and the decimal exponent, from JS (same digits as Go's shortest).
  const [mantissa, expText] = x.toExponential().split("e") as [string, string];
  const exp = Number(expText);
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace("-", "").replace(".", "");
  let out: string;
  if (exp < -4 || exp >= 6) {
    const frac = digits.length > 1 ? `.${digits.slice(1)}` : "";
    const e = Math.abs(exp);
    out = `${digits[0]}${frac}e${exp < 0 ? "-" : "+"}${e < 10 ? "0" : ""}${e}`;
  } else if (exp < 0) {
    out = `0.${"0".repeat(-exp - 1)}${digits}`;
  } else if (digits.length <= exp + 1) {
    out = digits + "0".repeat(exp + 1 - digits.length);
  } else {
    out = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  }
  return negative ? `-${out}` : out;
}
