/**
 * Benchmark: evaluations per second of typical edge configurations (runtime-spec §2.11), compiled
 * once and evaluated per hop. Baseline in the same run: a JSON round trip of the same
 * configuration (the cheapest "copy the config" a naive evaluator would pay before any work).
 *
 * Regular expressions (`=~`, RE2 dialect on re2js): evaluations per second of a configuration
 * matching a pattern, with JavaScript's own RegExp testing the same text as the baseline (the
 * engine tinyhost used before re2js); and the time of one evaluation of `^(a+)+$` against 31
 * `a`s and a `!` — backtracking takes seconds there, RE2 is linear.
 * Prints, as its last stdout line, a JSON array of {name, value, unit, baseline?, ratio?}
 * (the bench/run.ts contract); `--quick` shortens each measurement.
 *
 * Run: ./node_modules/.bin/bun bench/expression.ts
 */
import { compileTemplate } from "../src/runtime/expression/index.ts";

const request = {
  requestID: "0b7c9f",
  method: "GET",
  host: "example.com",
  requestURI: "/hello?x=1",
  body: "",
  headers: [
    { key: "Accept", value: "*/*" },
    { key: "User-Agent", value: "curl/8" },
  ],
};

const cases: Array<{ name: string; config: unknown; payload: unknown }> = [
  {
    name: "router_input",
    config: {
      context: "{{$}}",
      conditions: [
        { route: "GET", condition: "{{$.method == 'GET'}}" },
        { route: "POST", condition: "{{$.method == 'POST'}}" },
      ],
    },
    payload: request,
  },
  {
    name: "http_response_interpolated",
    config: {
      statusCode: 200,
      contentType: "application/json",
      body: '{"hello":"{{$.context.host}}","uri":"{{$.context.requestURI}}"}',
    },
    payload: { context: request },
  },
  {
    name: "cert_check_ok",
    config: {
      url: "{{$.context}}",
      status: "{{$.response.statusCode}}",
      daysLeft: "{{$.response.tls.daysUntilExpiry}}",
      warn: "{{$.response.tls.daysUntilExpiry < 14 ? 'renew' : 'fine'}}",
    },
    payload: { context: "https://example.com", response: { statusCode: 200, tls: { daysUntilExpiry: 42 } } },
  },
  {
    name: "filter_and_functions",
    config: { cheap: "{{$.items[?(@.price < 10)].name}}", total: "{{sum($.prices)}}", tag: "{{upper($.tag) + '-' + string($.n)}}" },
    payload: {
      items: [
        { name: "a", price: 5 },
        { name: "b", price: 15 },
        { name: "c", price: 7 },
      ],
      prices: [5, 15, 7],
      tag: "x",
      n: 3,
    },
  },
];

/** `=~` cases: the pattern (as Go writes it), the text, and JS RegExp source/flags for the baseline. */
const regexCases: Array<{ name: string; pattern: string; text: string; js: RegExp }> = [
  { name: "route_prefix", pattern: "^/api/v[0-9]+/", text: "/api/v1/items?limit=10", js: /^\/api\/v[0-9]+\//u },
  { name: "error_class", pattern: "(?i)timeout|refused", text: "dial tcp 10.0.0.1:443: i/o timeout", js: /timeout|refused/iu },
  { name: "email", pattern: "^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$", text: "dev.ops+alerts@example.com", js: /^[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}$/u },
];

const quick = process.argv.includes("--quick");

function measure(fn: () => unknown, ms = quick ? 100 : 400): number {
  for (let i = 0; i < 2000; i++) fn(); // warm up the JIT
  let n = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 1000; i++) fn();
    n += 1000;
    now = performance.now();
  }
  return Math.round((n * 1000) / (now - start));
}

interface Result {
  name: string;
  value: number;
  unit: string;
  baseline?: number;
  ratio?: number;
}

let sink: unknown;
const results: Result[] = [];
for (const c of cases) {
  const compiled = compileTemplate(c.config);
  const text = JSON.stringify(c.config);
  const evalRate = measure(() => (sink = compiled.evaluate(c.payload)));
  const baseRate = measure(() => (sink = JSON.parse(text)));
  results.push({
    name: `expression_${c.name}`,
    value: evalRate,
    unit: "evaluations/s",
    baseline: baseRate,
    ratio: Math.round((evalRate / baseRate) * 100) / 100,
  });
}
for (const r of regexCases) {
  const compiled = compileTemplate({ match: `{{$.text =~ '${r.pattern.replace(/\\/g, "\\\\")}'}}` });
  const payload = { text: r.text };
  if ((compiled.evaluate(payload) as { match: unknown }).match !== true) throw new Error(`regex case ${r.name} does not match`);
  const evalRate = measure(() => (sink = compiled.evaluate(payload)));
  const baseRate = measure(() => (sink = r.js.test(r.text)));
  results.push({
    name: `expression_regex_${r.name}`,
    value: evalRate,
    unit: "evaluations/s",
    baseline: baseRate,
    ratio: Math.round((evalRate / baseRate) * 1000) / 1000,
  });
}
{
  // One evaluation each: RE2 (through the evaluator) and the backtracking JS engine on the same input.
  const text = `${"a".repeat(31)}!`;
  const compiled = compileTemplate({ match: "{{$.text =~ '^(a+)+$'}}" });
  let t0 = performance.now();
  sink = compiled.evaluate({ text });
  const re2Ms = performance.now() - t0;
  t0 = performance.now();
  sink = /^(a+)+$/.test(text);
  const jsMs = performance.now() - t0;
  results.push({
    name: "expression_regex_catastrophic_32_chars",
    value: Math.round(re2Ms * 100) / 100,
    unit: "ms",
    baseline: Math.round(jsMs),
    ratio: Math.round((re2Ms / jsMs) * 10000) / 10000,
  });
}
const compileRate = measure(() => (sink = compileTemplate(cases[0]!.config)));
results.push({ name: "expression_compile_router_input", value: compileRate, unit: "compiles/s" });
void sink;
console.log(JSON.stringify(results));
