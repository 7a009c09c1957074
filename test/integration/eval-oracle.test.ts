/**
 * `tinyhost eval`'s verdicts against the Go SDK's own `pkg/evals` (test/go/evals: `evals.Parse`,
 * `Spec.ExpandEnv` and `evals.Check` at v0.13.125): the same specs read from the same YAML, and the
 * same failures, in the same words, for the same observed run — a corpus of runs written here, and
 * the runs local mode records on the platform's eval flow (test/fixtures/flows/tiny-eval-csv-smoke).
 * Where Go lists a map (the ports messages arrived at) its order is random: those lists are
 * compared as sets. Error texts are compared where tinyhost claims Go's words (validation); a type
 * error only has to be an error on both sides (tinyhost names the field and value its own way).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { readFileSync } from "node:fs";
import { goTool } from "../support/go-tools.ts";
import { LocalHost } from "../../src/local/host.ts";
import { loadStaticRegistry } from "../../src/loader/static.ts";
import { check, failureText, type Observed } from "../../src/local/evals/check.ts";
import { expandEnv, parseEvals, type EvalSpec } from "../../src/local/evals/spec.ts";
import { runEval } from "../../src/local/evals/run.ts";

const SMOKE = resolve(import.meta.dir, "../fixtures/flows/tiny-eval-csv-smoke");

interface GoVerdict {
  name: string;
  node: string;
  port: string;
  data: Record<string, unknown> | null;
  timeoutMs: number;
  failures: string[];
}
interface GoAnswer {
  error?: string;
  specs?: GoVerdict[];
}

let oracle: Bun.Subprocess<"pipe", "pipe", "inherit">;
let lines: AsyncIterator<string>;

/** Asks the Go SDK to read `yaml` and judge `observed` (one request, one answer line). */
async function goJudge(yaml: string, observed: Observed, path = "t.yaml"): Promise<GoAnswer> {
  oracle.stdin.write(JSON.stringify({ path, yaml, observed }) + "\n");
  await oracle.stdin.flush();
  const next = await lines.next();
  if (next.done) throw new Error("the evals oracle exited");
  return JSON.parse(next.value) as GoAnswer;
}

async function* readLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buf = "";
  for await (const chunk of stream) {
    buf += decoder.decode(chunk, { stream: true });
    let i: number;
    while ((i = buf.indexOf("\n")) >= 0) {
      yield buf.slice(0, i);
      buf = buf.slice(i + 1);
    }
  }
}

/** tinyhost's reading and verdicts in the oracle's shape. */
async function ourJudge(yaml: string, observed: Observed, env: Record<string, string> = {}): Promise<GoAnswer> {
  let specs: EvalSpec[];
  try {
    specs = await parseEvals("t.yaml", yaml);
    for (const s of specs) expandEnv(s, env);
  } catch (err) {
    return { error: (err as Error).message };
  }
  return {
    specs: specs.map((s) => ({
      name: s.name,
      node: s.trigger.node,
      port: s.trigger.port,
      data: s.trigger.data ?? null,
      timeoutMs: s.timeoutMs,
      failures: check(s, observed).map(failureText),
    })),
  };
}

/** A failure about a usage unit (Go checks them last, in its map's random order). */
const USAGE = /^expected (the run to meter |\S+ [<>]= )/;

/**
 * Go lists a map's keys in random order: `messages arrived at a, b` and the usage failures are
 * compared as sets.
 */
function normal(a: GoAnswer): GoAnswer {
  if (!a.specs) return a;
  return {
    ...a,
    specs: a.specs.map((s) => {
      const failures = s.failures.map((f) => f.replace(/(messages arrived at )(.*)$/, (_m, p: string, list: string) => p + list.split(", ").sort().join(", ")));
      return { ...s, failures: [...failures.filter((f) => !USAGE.test(f)), ...failures.filter((f) => USAGE.test(f)).sort()] };
    }),
  };
}

const obs = (payloads: Record<string, string[]>, more: Partial<Observed> = {}): Observed => ({ payloads, errors: 0, handled: 0, usage: {}, ...more });

const RUN = obs(
  {
    "f1.m.debug-1:in": ['{"count":2,"rows":[{"name":"a","n":0.5},{"name":"web, edge","n":7,"ok":false}],"big":1e21,"tiny":1e-7,"html":"<b>&"}'],
    "f1.m.other-2:out": ["plain text", '"quoted"'],
    "f1.m.empty-3:in": ["{}"],
    "f1.m.arr-4:in": ["[1,2,3]"],
  },
  { errors: 1, handled: 2, usage: { tokens: 120, calls: 3 } },
);

/** Specs whose verdicts on {@link RUN} must be Go's (passing and failing claims of every kind). */
const CASES: Record<string, string> = {
  "equals across types": `- name: eq
  trigger: {node: sig}
  expect:
    errors: 1
    arrives:
      - {at: "debug-1:in", path: "$.count", equals: 2}
      - {at: "debug-1:in", path: "$.count", equals: "2"}
      - {at: "debug-1:in", path: "$.count", equals: 3}
      - {at: "debug-1:in", path: "$.rows[1].ok", equals: false}
      - {at: "debug-1:in", path: "$.rows[1].ok", equals: "false"}
      - {at: "debug-1:in", path: "$.rows[0].n", equals: 0.5}
      - {at: "debug-1:in", path: "$.rows[0].n", equals: 0.25}
      - {at: "debug-1:in", path: "$.rows[0]", equals: {name: a, n: 0.5}}
      - {at: "debug-1:in", path: "$.rows[0]", equals: {name: b}}
      - {at: "debug-1:in", path: "$.rows[*].name", equals: [a, "web, edge"]}
      - {at: "debug-1:in", path: "$.big", equals: 1e21}
      - {at: "debug-1:in", path: "$.tiny", equals: 5}
      - {at: "debug-1:in", path: "$.html", equals: "x"}
      - {at: "debug-1:in", path: "$.rows", equals: 1}
`,
  "contains, matches, exists, min and max": `name: cmm
trigger: {node: sig, port: in, data: {send: true}}
timeout: 2m
expect:
  errors: 1
  arrives:
    - {at: "debug-1:in", path: "$.rows[1].name", contains: "edge"}
    - {at: "debug-1:in", path: "$.rows[1].name", contains: "nope"}
    - {at: "debug-1:in", path: "$.rows", contains: '"n":7'}
    - {at: "debug-1:in", path: "$.rows[1].name", matches: "^web,\\\\s"}
    - {at: "debug-1:in", path: "$.rows[1].name", matches: "^edge"}
    - {at: "debug-1:in", path: "$.rows[1].name", matches: "(unclosed"}
    - {at: "debug-1:in", path: "$.count", exists: true}
    - {at: "debug-1:in", path: "$.missing", exists: true}
    - {at: "debug-1:in", path: "$.missing", exists: false}
    - {at: "debug-1:in", path: "$.count", min: 2, max: 2}
    - {at: "debug-1:in", path: "$.count", min: 3}
    - {at: "debug-1:in", path: "$.count", max: 1.5}
    - {at: "debug-1:in", path: "$.count", min: 0, max: 1}
    - {at: "debug-1:in", path: "$.rows[0].name", min: 1}
    - {at: "debug-1:in", path: "$.rows[0].name", min: 1}
`,
  "whole payloads, several messages, no path match, bad paths": `name: whole
trigger: {node: sig}
expect:
  errors: 1
  arrives:
    - {at: "other-2:out", equals: "plain text"}
    - {at: "other-2:out", equals: "quoted"}
    - {at: "other-2:out", equals: "nope"}
    - {at: "other-2:out", path: "$.x", equals: 1}
    - {at: "empty-3:in", path: "$.x", equals: 1}
    - {at: "empty-3:in"}
    - {at: "arr-4:in", path: "$[1]", equals: 2}
    - {at: "arr-4:in", equals: [1, 2, 3]}
    - {at: "debug-1:in", path: "$.rows[", equals: 1}
    - {at: "f1.m.debug-1:in", path: "$.count", equals: 2}
    - {at: "nowhere:in"}
`,
  "errors, silent and usage": `name: esu
trigger: {node: sig}
expect:
  silent: ["nowhere:in", "other-2:out", "m.empty-3:in"]
  usage:
    tokens: {min: 100, max: 110}
    calls: {max: 3}
    dollars: {max: 1}
`,
  "a run with nothing at all": `name: nothing
trigger: {node: sig}
expect:
  errors: 0
  arrives: [{at: "a:b"}]
`,
  "env and YAML 1.1 scalars": `- name: 5
  flow: csv-smoke
  trigger: {node: n, data: {key: "\${TOKEN}", "on": yes, list: ["\${TOKEN}-x", 1]}}
  timeout: 1h30m
`,
};

/** Specs Go refuses; `same` = the words must be Go's. */
const BAD: Record<string, { yaml: string; same: boolean }> = {
  "no name": { yaml: "trigger: {node: sig}\n", same: true },
  "no node": { yaml: "name: x\n", same: true },
  "at without a colon": { yaml: "name: x\ntrigger: {node: sig}\nexpect: {arrives: [{at: nocolon}]}\n", same: true },
  "second of a list": { yaml: "- name: ok\n  trigger: {node: sig}\n- name: bad\n", same: false },
  "unset variable": { yaml: "name: x\ntrigger: {node: sig, data: {a: '${UNSET_B} ${UNSET_A}'}}\n", same: true },
  "a duration without unit": { yaml: "name: x\ntrigger: {node: sig}\ntimeout: 45\n", same: false },
  "errors not a number": { yaml: "name: x\ntrigger: {node: sig}\nexpect: {errors: two}\n", same: false },
  "min not a number": { yaml: "name: x\ntrigger: {node: sig}\nexpect: {arrives: [{at: 'a:b', min: low}]}\n", same: false },
  "not YAML": { yaml: "name: [x\n", same: false },
  "a list after a comment line (read as one eval)": { yaml: "# evals\n- name: x\n  trigger: {node: sig}\n", same: false },
};

beforeAll(async () => {
  const bin = await goTool("evals");
  oracle = Bun.spawn([bin], { stdin: "pipe", stdout: "pipe", stderr: "inherit", env: { ...process.env, TOKEN: "s3cret" } });
  lines = readLines(oracle.stdout)[Symbol.asyncIterator]();
}, 600_000);

afterAll(() => {
  oracle?.kill();
});

describe("eval verdicts against the Go SDK's pkg/evals", () => {
  for (const [what, yaml] of Object.entries(CASES)) {
    test(`${what}: the same specs and the same failures`, async () => {
      const observed = what === "a run with nothing at all" ? obs({}) : RUN;
      const go = normal(await goJudge(yaml, observed));
      expect(go.error).toBeUndefined();
      expect(normal(await ourJudge(yaml, observed, { TOKEN: "s3cret" }))).toEqual(go);
    });
  }

  for (const [what, { yaml, same }] of Object.entries(BAD)) {
    test(`refused as Go refuses it: ${what}`, async () => {
      const go = await goJudge(yaml, obs({}));
      const ours = await ourJudge(yaml, obs({}));
      expect(go.error).toBeString();
      expect(ours.error).toBeString();
      if (same) expect(ours.error).toBe(go.error!);
    });
  }

  test("the platform's eval flow: the runs local mode records get Go's verdicts — both evals pass, and a wrong claim fails alike", async () => {
    const host = await LocalHost.start({ dir: SMOKE, components: loadStaticRegistry().list(), statePath: null, watch: false, report: () => {} });
    try {
      const yaml = readFileSync(join(SMOKE, "evals/csv.yaml"), "utf8");
      const specs = await parseEvals("csv.yaml", yaml);
      const wrong = `- name: wrong
  trigger: {node: signal-eval, data: {send: true}}
  expect:
    errors: 1
    silent: ["text-chunk-eval:response"]
    arrives:
      - {at: "debug-eval:in", path: "$.rows[1].restarts", equals: 8}
      - {at: "text-chunk-eval:response", path: "$.chunks[1].text", contains: "under no load"}
      - {at: "text-chunk-eval:response", path: "$.count", max: 1}
`;
      for (const s of specs) {
        const r = await runEval(host, s, { settleMs: 200 });
        expect(r.error).toBeUndefined();
        const go = await goJudge(yaml, r.observed);
        const verdict = go.specs!.find((v) => v.name === s.name)!;
        expect(verdict.failures).toEqual([]);
        expect(r.failures.map(failureText)).toEqual(verdict.failures);
        const goWrong = normal(await goJudge(wrong, r.observed));
        expect(normal(await ourJudge(wrong, r.observed))).toEqual(goWrong);
        expect(goWrong.specs![0]!.failures.length).toBeGreaterThanOrEqual(3);
      }
    } finally {
      await host.stop();
    }
  });
});
