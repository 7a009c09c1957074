import { afterEach, describe, expect, test } from "bun:test";
import cron from "../../../components/cron.ts";
import { parseCron } from "../../../src/sdk/cron-schedule.ts";
import type { WallClock } from "../../../src/sdk/wall-clock.ts";
import { FakeCluster, waitFor, type Pod } from "./leader-pods.ts";

/**
 * Virtual time in UTC. `auto`: every wait jumps straight to its deadline (after one real
 * millisecond, so a loop cannot spin). Otherwise a wait ends only on `advance()` or abort.
 */
class VirtualClock implements WallClock {
  readonly zone = "utc" as const;
  #wake = Promise.withResolvers<void>();
  constructor(
    public t: number,
    readonly auto: boolean,
  ) {}
  now(): Date {
    return new Date(this.t);
  }
  /** Lets every pending wait reach its deadline. */
  advance(): void {
    this.#wake.resolve();
    this.#wake = Promise.withResolvers<void>();
  }
  async sleepUntil(deadline: Date, signal: AbortSignal): Promise<boolean> {
    if (this.auto) await Bun.sleep(1);
    else {
      const aborted = new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      await Promise.race([this.#wake.promise, aborted]);
    }
    if (signal.aborted) return false;
    this.t = Math.max(this.t, deadline.getTime());
    return true;
  }
}

const REF = Date.parse("2026-08-22T10:05:30Z"); // a Saturday

const clusters: FakeCluster[] = [];
/** A cluster whose new instances (pods) get `clock`, or the clock `clock()` returns at that moment. */
function cluster(clock: WallClock | (() => WallClock), settings?: unknown): FakeCluster {
  const pick = typeof clock === "function" ? clock : () => clock;
  const c = new FakeCluster(cron, settings, (self) => void ((self as { clock: WallClock }).clock = pick()));
  clusters.push(c);
  return c;
}
afterEach(async () => {
  await Promise.all(clusters.splice(0).map((c) => c.shutdown()));
});

const status = (pod: Pod) => (pod.portValue("_control") as { status: string }).status;

describe("cron schedule: next activation", () => {
  const at = (iso: string) => new Date(iso);
  const cases: [expression: string, from: string, next: string | undefined][] = [
    ["*/1 * * * *", "2026-08-22T10:05:30Z", "2026-08-22T10:06:00.000Z"],
    ["* * * * *", "2026-08-22T10:05:00Z", "2026-08-22T10:06:00.000Z"], // strictly after
    ["*/5 * * * *", "2026-08-22T10:05:30Z", "2026-08-22T10:10:00.000Z"],
    ["5/20 * * * *", "2026-08-22T10:05:30Z", "2026-08-22T10:25:00.000Z"], // n/step = n-max/step
    ["*/15 9-17/4 * * *", "2026-08-22T10:05:30Z", "2026-08-22T13:00:00.000Z"],
    ["0 9 * * 1-5", "2026-08-22T10:05:30Z", "2026-08-24T09:00:00.000Z"], // Saturday → Monday
    ["0 0 * * SUN", "2026-08-22T10:05:30Z", "2026-08-23T00:00:00.000Z"],
    ["0 0 ? * 1", "2026-08-22T10:05:30Z", "2026-08-24T00:00:00.000Z"], // ? = *: both day fields must match
    ["0 0 */2 * 1", "2026-08-22T10:05:30Z", "2026-08-23T00:00:00.000Z"], // both restricted: either matches
    ["0 12 13 * 5", "2026-08-22T10:05:30Z", "2026-08-28T12:00:00.000Z"], // the 13th or a Friday
    ["0 12 13 * *", "2026-08-22T10:05:30Z", "2026-09-13T12:00:00.000Z"],
    ["15,45 */6 * jan,JUL sun", "2026-08-22T10:05:30Z", "2027-01-03T00:15:00.000Z"],
    ["0 0 1 1 *", "2026-08-22T10:05:30Z", "2027-01-01T00:00:00.000Z"],
    ["59 23 31 12 *", "2026-12-31T23:59:00Z", "2027-12-31T23:59:00.000Z"],
    ["30 2 29 2 *", "2026-08-22T10:05:30Z", "2028-02-29T02:30:00.000Z"], // next leap day
    ["0 0 30 2 *", "2026-08-22T10:05:30Z", undefined], // never
  ];
  for (const [expression, from, next] of cases) {
    test(`${expression} after ${from} → ${next ?? "none"}`, () => {
      expect(parseCron(expression).next(at(from), "utc")?.toISOString()).toBe(next);
    });
  }
});

describe("cron schedule: local zones across daylight-saving changes, as Go's robfig/cron v3.0.1", () => {
  // Expected values were printed by robfig/cron v3.0.1 (the Go cron component's parser, fields
  // Minute|Hour|Dom|Month|Dow) for the same expression, instant and zone. A wall time that a
  // spring-forward skips does not run that day; in a fall-back hour the first occurrence runs.
  const cases: [zone: string, expression: string, from: string, next: string][] = [
    ["America/New_York", "30 2 * * *", "2026-03-08T05:00:00Z", "2026-03-09T06:30:00.000Z"], // 02:30 does not exist on 8 March
    ["America/New_York", "0 2 * * *", "2026-03-07T12:00:00Z", "2026-03-09T06:00:00.000Z"],
    ["America/New_York", "0 2 8 3 *", "2026-03-08T05:00:00Z", "2027-03-08T07:00:00.000Z"],
    ["America/New_York", "0 3 * * *", "2026-03-08T05:00:00Z", "2026-03-08T07:00:00.000Z"],
    ["America/New_York", "30 1 * * *", "2026-11-01T04:30:00Z", "2026-11-01T05:30:00.000Z"], // first 01:30 (EDT)
    ["America/New_York", "30 1 * * *", "2026-11-01T06:10:00Z", "2026-11-01T06:30:00.000Z"],
    ["Europe/Berlin", "30 2 * * *", "2026-03-29T00:30:00Z", "2026-03-30T00:30:00.000Z"],
    ["Europe/Berlin", "30 2 * * *", "2026-10-25T00:30:00Z", "2026-10-25T01:30:00.000Z"],
    ["Australia/Lord_Howe", "15 2 * * *", "2026-10-03T12:00:00Z", "2026-10-04T15:15:00.000Z"], // skipped by a 30-minute shift
  ];
  const tz = process.env.TZ;
  afterEach(() => {
    if (tz === undefined) delete process.env.TZ;
    else process.env.TZ = tz;
  });
  for (const [zone, expression, from, next] of cases) {
    test(`${expression} in ${zone} after ${from} → ${next}`, () => {
      process.env.TZ = zone;
      expect(parseCron(expression).next(new Date(from), "local")?.toISOString()).toBe(next);
    });
  }
});

describe("cron schedule: rejected expressions", () => {
  const cases: [expression: string, message: string][] = [
    ["", "empty cron expression"],
    ["* * * *", "expected exactly 5 fields (minute hour day-of-month month day-of-week), found 4"],
    ["* * * * * *", "expected exactly 5 fields (minute hour day-of-month month day-of-week), found 6"],
    ["@hourly", "descriptors are not accepted"],
    ["TZ=UTC * * * * *", "time zone prefixes are not supported"],
    ["60 * * * *", 'minute field: end of range (60) above maximum (59): "60"'],
    ["* 24 * * *", "hour field: end of range (24) above maximum (23)"],
    ["* * 0 * *", "day-of-month field: beginning of range (0) below minimum (1)"],
    ["* * * 13 *", "month field: end of range (13) above maximum (12)"],
    ["* * * * 7", "day-of-week field: end of range (7) above maximum (6)"],
    ["5-1 * * * *", "minute field: beginning of range (5) beyond end of range (1)"],
    ["*/0 * * * *", "minute field: step of range should be a positive number"],
    ["a * * * *", 'minute field: "a" is not a number'],
    ["* * * foo *", 'month field: "foo" is not a number or a name'],
    ["1-2-3 * * * *", "minute field: too many hyphens"],
    ["*/2/3 * * * *", "minute field: too many slashes"],
    ["1,,2 * * * *", "minute field: empty list item"],
  ];
  for (const [expression, message] of cases) {
    test(`${JSON.stringify(expression)} is rejected with INVALID_CRON: ${message}`, () => {
      let caught: unknown;
      try {
        parseCron(expression);
      } catch (err) {
        caught = err;
      }
      expect((caught as { code?: string }).code).toBe("INVALID_CRON");
      expect((caught as Error).message).toContain(message);
    });
  }
});

describe("cron ports", () => {
  test("declares _reconcile, _settings, out and a stopped _control with Go's names, labels and positions", () => {
    expect(cron.ports().map((p) => [p.name, p.label, p.source, p.position])).toEqual([
      ["_reconcile", "", false, "top"],
      ["_settings", "Settings", false, "top"],
      ["out", "Out", true, "right"],
      ["_control", "Control", true, "top"],
    ]);
  });

  test("settings default to every minute, schedule required, context configurable", () => {
    const settings = cron.ports()[1]!;
    expect(settings.configuration).toEqual({ context: null, schedule: "*/1 * * * *" });
    const schema = JSON.parse(JSON.stringify(settings.schema));
    expect(schema.required).toEqual(["schedule"]);
    expect(schema.properties.context.configurable).toBe(true);
  });

  test("the stopped control offers Start with status Not running", () => {
    expect(cron.ports()[3]!.configuration).toEqual({ context: null, schedule: "*/1 * * * *", status: "Not running", start: true });
  });
});

describe("cron on the leader", () => {
  test("start fires the context at the root of out on every activation and persists schedule and context", async () => {
    const c = cluster(new VirtualClock(REF, true));
    const pod = c.newPod({ leader: true });
    await pod.reconcile();
    await pod.send("_control", { start: true, schedule: "*/5 * * * *", context: { hello: "world" } });
    await waitFor("three runs", () => pod.on("out").length >= 3);
    expect(pod.on("out").slice(0, 3)).toEqual([{ hello: "world" }, { hello: "world" }, { hello: "world" }]);
    await waitFor("metadata patch", () => c.metadata["cron-running"] === "true");
    expect([c.metadata["cron-schedule"], c.metadata["cron-context"]]).toEqual(["*/5 * * * *", '{"hello":"world"}']);
  });

  test("while running, _control shows the schedule and the next run in RFC 3339", async () => {
    const c = cluster(new VirtualClock(REF, false));
    const pod = c.newPod({ leader: true });
    await pod.reconcile();
    await pod.send("_control", { start: true, schedule: "*/5 * * * *", context: "x" });
    expect(pod.portValue("_control")).toEqual({ context: "x", schedule: "*/5 * * * *", nextRun: "2026-08-22T10:10:00Z", status: "Running", stop: true });
  });

  test("after each run nextRun moves to the following activation", async () => {
    const clock = new VirtualClock(REF, false);
    const pod = cluster(clock).newPod({ leader: true });
    await pod.reconcile();
    await pod.send("_control", { start: true, schedule: "0 * * * *", context: 1 });
    clock.advance();
    await waitFor("one run", () => pod.on("out").length === 1);
    await waitFor("nextRun refreshed", () => (pod.portValue("_control") as { nextRun: string }).nextRun === "2026-08-22T12:00:00Z");
  });

  test("an invalid schedule is refused: cron-error set, status shows it, nothing runs", async () => {
    const c = cluster(new VirtualClock(REF, true));
    const pod = c.newPod({ leader: true });
    await pod.reconcile();
    await pod.send("_control", { start: true, schedule: "not-a-cron", context: 1 });
    await waitFor("error patch", () => c.metadata["cron-error"] !== undefined);
    expect(c.metadata["cron-error"]).toBe(
      'invalid schedule "not-a-cron": expected exactly 5 fields (minute hour day-of-month month day-of-week), found 1: "not-a-cron"',
    );
    expect(status(pod)).toBe(c.metadata["cron-error"]!);
    expect(c.metadata["cron-running"]).toBeUndefined();
    expect(pod.on("out")).toEqual([]);
  });

  test("a valid start clears a previous error", async () => {
    const c = cluster(new VirtualClock(REF, false));
    const pod = c.newPod({ leader: true });
    await pod.reconcile();
    await pod.send("_control", { start: true, schedule: "bad" });
    await waitFor("error patch", () => c.metadata["cron-error"] !== undefined);
    await pod.send("_control", { start: true, schedule: "*/1 * * * *" });
    await waitFor("running patch", () => c.metadata["cron-running"] === "true");
    expect(c.metadata["cron-error"]).toBeUndefined();
    expect(status(pod)).toBe("Running");
  });

  test("stop ends the runs and clears all four metadata keys", async () => {
    const c = cluster(new VirtualClock(REF, true));
    const pod = c.newPod({ leader: true });
    await pod.reconcile();
    await pod.send("_control", { start: true, schedule: "*/1 * * * *", context: 1 });
    await waitFor("running patch and a run", () => c.metadata["cron-running"] === "true" && pod.on("out").length > 0);
    await pod.send("_control", { stop: true });
    await waitFor("metadata cleared", () => ["cron-running", "cron-schedule", "cron-context", "cron-error"].every((k) => !(k in c.metadata)));
    const runs = pod.on("out").length;
    await Bun.sleep(20);
    expect(pod.on("out").length).toBe(runs);
    expect(status(pod)).toBe("Not running");
  });

  test("a running cron given another context uses it from the next run and persists it", async () => {
    const clock = new VirtualClock(REF, false);
    const c = cluster(clock);
    const pod = c.newPod({ leader: true });
    await pod.reconcile();
    await pod.send("_control", { start: true, schedule: "*/1 * * * *", context: "old" });
    await pod.send("_control", { context: "new" });
    await waitFor("context patch", () => c.metadata["cron-context"] === '"new"');
    clock.advance();
    await waitFor("a run", () => pod.on("out").length === 1);
    expect(pod.on("out")).toEqual(["new"]);
  });

  test("settings with an invalid schedule fail the reconcile naming the field", async () => {
    const pod = cluster(new VirtualClock(REF, false), { context: null, schedule: "61 * * * *" }).newPod({ leader: true });
    const st = await pod.reconcile();
    expect(st.error).toBe(true);
    expect(st.status).toBe(
      'node test.harness.cron-0 (component cron) failed in onSettings: settings field "schedule": invalid schedule "61 * * * *": minute field: end of range (61) above maximum (59): "61"',
    );
  });
});

describe("cron leadership and restarts", () => {
  test("a control start on a non-leader pod does nothing", async () => {
    const c = cluster(new VirtualClock(REF, true));
    const pod = c.newPod({ leader: false });
    await pod.reconcile();
    await pod.send("_control", { start: true, schedule: "*/1 * * * *", context: 1 });
    await Bun.sleep(20);
    expect(pod.on("out")).toEqual([]);
    expect(c.metadata).toEqual({});
  });

  test("only the leader fires: a follower reconciled with cron-running stays idle", async () => {
    const c = cluster(new VirtualClock(REF, true));
    const leader = c.newPod({ leader: true });
    const follower = c.newPod({ leader: false });
    await leader.reconcile();
    await follower.reconcile();
    await leader.send("_control", { start: true, schedule: "*/1 * * * *", context: "tick" });
    await waitFor("running patch", () => c.metadata["cron-running"] === "true");
    await follower.reconcile();
    await waitFor("leader runs", () => leader.on("out").length >= 3);
    expect(follower.on("out")).toEqual([]);
    expect(status(follower)).toBe("Not running");
  });

  test("the loop stops when this pod loses the lease; metadata stays for the next leader", async () => {
    const c = cluster(new VirtualClock(REF, true));
    const pod = c.newPod({ leader: true });
    await pod.reconcile();
    await pod.send("_control", { start: true, schedule: "*/1 * * * *", context: 1 });
    await waitFor("running patch and a run", () => c.metadata["cron-running"] === "true" && pod.on("out").length > 0);
    pod.leader = false;
    await waitFor("loop ended", () => status(pod) === "Not running");
    const runs = pod.on("out").length;
    await Bun.sleep(20);
    expect(pod.on("out").length).toBe(runs);
    expect(c.metadata["cron-running"]).toBe("true");
  });

  test("a restarted leader pod resumes with the schedule and context from metadata", async () => {
    let clock = new VirtualClock(REF, false);
    const c = cluster(() => clock);
    const pod1 = c.newPod({ leader: true });
    await pod1.reconcile();
    await pod1.send("_control", { start: true, schedule: "*/5 * * * *", context: { env: "prod" } });
    await waitFor("running patch", () => c.metadata["cron-running"] === "true");
    await pod1.shutdown();
    clock = new VirtualClock(REF, false); // the new pod's own clock
    const pod2 = c.newPod({ leader: true });
    await pod2.reconcile();
    expect(pod2.portValue("_control")).toEqual({
      context: { env: "prod" },
      schedule: "*/5 * * * *",
      nextRun: "2026-08-22T10:10:00Z",
      status: "Running",
      stop: true,
    });
    clock.advance();
    await waitFor("a run after restart", () => pod2.on("out").length === 1);
    expect(pod2.on("out")).toEqual([{ env: "prod" }]);
    expect(pod1.on("out")).toEqual([]);
  });

  test("a restarted pod that is not the leader does not resume", async () => {
    const c = cluster(new VirtualClock(REF, false));
    const pod1 = c.newPod({ leader: true });
    await pod1.reconcile();
    await pod1.send("_control", { start: true, schedule: "*/5 * * * *", context: "ctx" });
    await waitFor("running patch", () => c.metadata["cron-running"] === "true");
    await pod1.shutdown();
    const pod2 = c.newPod({ leader: false });
    await pod2.reconcile();
    expect(pod2.portValue("_control")).toEqual({ context: "ctx", schedule: "*/5 * * * *", status: "Not running", start: true });
  });

  test("a stale reconcile does not overwrite settings delivered since the pod started", async () => {
    const c = cluster(new VirtualClock(REF, false), { context: "fresh", schedule: "*/5 * * * *" });
    const pod = c.newPod({ leader: false });
    await pod.reconcile();
    c.metadata["cron-schedule"] = "*/10 * * * *";
    c.metadata["cron-context"] = '"stale"';
    await pod.reconcile();
    expect(pod.portValue("_control")).toMatchObject({ context: "fresh", schedule: "*/5 * * * *" });
  });

  test("deleting the node stops the loop", async () => {
    const c = cluster(new VirtualClock(REF, true));
    const pod = c.newPod({ leader: true });
    await pod.reconcile();
    await pod.send("_control", { start: true, schedule: "*/1 * * * *", context: 1 });
    await waitFor("a run", () => pod.on("out").length > 0);
    await pod.destroy();
    const runs = pod.on("out").length;
    await Bun.sleep(20);
    expect(pod.on("out").length).toBe(runs);
  });
});
