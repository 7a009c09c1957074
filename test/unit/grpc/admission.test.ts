import { describe, expect, test } from "bun:test";
import { errorCode, shouldRetry } from "../../../src/core/errors.ts";
import { CallAdmission, type Admission } from "../../../src/transport/grpc/admission.ts";
import { isLocalRefusal } from "../../../src/transport/refusal.ts";
import { HopSlots } from "../../../src/transport/slots.ts";

const TO = "h.m.n-1:in";
const refusal = (a: Admission) => (a.admitted ? undefined : a.refusal);
const alive = () => new AbortController().signal;

describe("gRPC call admission to the hop slots (issue 21 item 4)", () => {
  test("calls up to the limit are admitted at once; release frees the slot once, however often called", async () => {
    const slots = new HopSlots({ limit: 2 });
    const adm = new CallAdmission({ slots, queueWaitMs: 1000 });
    const [a, b] = await Promise.all([adm.admit(TO, alive()), adm.admit(TO, alive())]);
    expect([a.admitted, b.admitted, slots.taken]).toEqual([true, true, 2]);
    if (a.admitted) {
      a.release();
      a.release();
    }
    expect(slots.taken).toBe(1);
  });

  test("beyond the limit a call queues and runs when a slot frees", async () => {
    const slots = new HopSlots({ limit: 1 });
    const adm = new CallAdmission({ slots, queueWaitMs: 1000 });
    const first = await adm.admit(TO, alive());
    const second = adm.admit(TO, alive());
    await Bun.sleep(5);
    expect(slots.queued).toBe(1);
    if (first.admitted) first.release();
    expect((await second).admitted).toBe(true);
    expect(slots.taken).toBe(1);
  });

  test("a full queue or a wait that runs out answers the retryable BUSY refusal, counted", async () => {
    const slots = new HopSlots({ limit: 1, queueLimit: 1 });
    const adm = new CallAdmission({ slots, queueWaitMs: 30 });
    await adm.admit(TO, alive());
    const waiting = adm.admit(TO, alive());
    const full = refusal(await adm.admit(TO, alive()));
    const late = refusal(await waiting);
    for (const e of [full, late])
      expect({ code: errorCode(e), retry: shouldRetry(e), local: isLocalRefusal(e) }).toEqual({ code: "BUSY", retry: true, local: true });
    expect(full?.message).toContain("queue of 1 full");
    expect(late?.message).toContain("no slot within 30 ms");
    expect({ busy: slots.busy, taken: slots.taken, queued: slots.queued }).toEqual({ busy: 2, taken: 1, queued: 0 });
  });

  test("queueWaitMs 0 refuses at once; a bad value names it", async () => {
    const slots = new HopSlots({ limit: 1 });
    const adm = new CallAdmission({ slots, queueWaitMs: 0 });
    await adm.admit(TO, alive());
    expect(errorCode(refusal(await adm.admit(TO, alive())))).toBe("BUSY");
    expect(() => new CallAdmission({ slots, queueWaitMs: -1 })).toThrow("queueWaitMs = -1");
  });

  test("a caller gone while queued leaves the queue without a refusal and takes no slot", async () => {
    const slots = new HopSlots({ limit: 1 });
    const adm = new CallAdmission({ slots, queueWaitMs: 1000 });
    await adm.admit(TO, alive());
    const gone = new AbortController();
    const queued = adm.admit(TO, gone.signal);
    await Bun.sleep(5);
    gone.abort();
    const a = await queued;
    expect({ admitted: a.admitted, refusal: refusal(a), queued: slots.queued, taken: slots.taken, busy: slots.busy }).toEqual({
      admitted: false,
      refusal: undefined,
      queued: 0,
      taken: 1,
      busy: 0,
    });
  });

  test("close refuses the queued calls and every later one with the retryable SHUTTING_DOWN; running ones keep their slot", async () => {
    const slots = new HopSlots({ limit: 1, queueLimit: 2 });
    const adm = new CallAdmission({ slots, queueWaitMs: 5000 });
    const running = await adm.admit(TO, alive());
    const queued = [adm.admit(TO, alive()), adm.admit(TO, alive())];
    await Bun.sleep(5);
    adm.close();
    const after = await adm.admit(TO, alive());
    for (const e of [...(await Promise.all(queued)).map(refusal), refusal(after)]) {
      expect({ code: errorCode(e), retry: shouldRetry(e), local: isLocalRefusal(e) }).toEqual({ code: "SHUTTING_DOWN", retry: true, local: true });
    }
    expect({ refused: adm.refusedClosed, queued: slots.queued, taken: slots.taken, busy: slots.busy }).toEqual({ refused: 3, queued: 0, taken: 1, busy: 0 });
    if (running.admitted) running.release();
    expect(slots.taken).toBe(0);
  });
});
