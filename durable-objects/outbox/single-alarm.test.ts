// The one alarm per object, against a real object's storage in workerd (a scratch MachineDO that was
// never initialized, so its own alarm handler finds nothing to do).
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { BACKSTOP_MS, SingleAlarm, type AlarmCapability } from "./single-alarm.ts";

let scratchCount = 0;

function inScratchObject<R>(test: (ctx: DurableObjectState) => Promise<R>): Promise<R> {
  return runInDurableObject(env.MACHINES.getByName(`alarm-scratch-${++scratchCount}`), async (_, ctx) => {
    try {
      return await test(ctx);
    } finally {
      await ctx.storage.deleteAlarm();
    }
  });
}

const dueAt = (at: number | null): AlarmCapability => ({ nextAlarmMs: () => at, onAlarm: () => {} });

describe("SingleAlarm", () => {
  it("is set to the earliest time any capability needs", () =>
    inScratchObject(async (ctx) => {
      const base = Date.now();
      const alarms = new SingleAlarm(ctx, () => base);
      alarms.register(dueAt(null), dueAt(base + 60_000), dueAt(base + 5_000));
      const before = Date.now();
      await alarms.reschedule();
      const at = (await ctx.storage.getAlarm())!;
      expect(at).toBeGreaterThanOrEqual(before + 5_000);
      expect(at).toBeLessThanOrEqual(Date.now() + 5_000);
    }));

  it("is deleted when no capability needs it", () =>
    inScratchObject(async (ctx) => {
      await ctx.storage.setAlarm(Date.now() + 60_000);
      const alarms = new SingleAlarm(ctx, () => Date.now());
      alarms.register(dueAt(null), dueAt(null));
      await alarms.reschedule();
      expect(await ctx.storage.getAlarm()).toBeNull();
    }));

  it("keeps the distance on real time when the object's clock is elsewhere (a test-moved billing clock)", () =>
    inScratchObject(async (ctx) => {
      const objectNow = Date.now() + 10 * 3_600_000;
      const alarms = new SingleAlarm(ctx, () => objectNow);
      alarms.register(dueAt(objectNow + 5_000));
      const before = Date.now();
      await alarms.reschedule();
      const after = Date.now();
      const at = (await ctx.storage.getAlarm())!;
      expect(at).toBeGreaterThanOrEqual(before + 5_000);
      expect(at).toBeLessThanOrEqual(after + 5_000);
    }));

  it("an overdue time sets the alarm for now, never the past", () =>
    inScratchObject(async (ctx) => {
      const alarms = new SingleAlarm(ctx, () => Date.now());
      alarms.register(dueAt(Date.now() - 30_000));
      const before = Date.now();
      await alarms.reschedule();
      expect(await ctx.storage.getAlarm()).toBeGreaterThanOrEqual(before);
      expect(await ctx.storage.getAlarm()).toBeLessThanOrEqual(Date.now());
    }));

  it("ringing runs every capability in the order registered with one time, then sets the next alarm", () =>
    inScratchObject(async (ctx) => {
      const now = Date.now();
      const ran: string[] = [];
      const alarms = new SingleAlarm(ctx, () => now);
      alarms.register(
        { nextAlarmMs: () => null, onAlarm: (at) => void ran.push(`liveness@${at - now}`) },
        { nextAlarmMs: () => now + 1_000, onAlarm: async (at) => void ran.push(`outbox@${at - now}`) },
      );
      await alarms.ring();
      expect(ran).toEqual(["liveness@0", "outbox@0"]);
      expect(await ctx.storage.getAlarm()).not.toBeNull();
    }));

  it("after a change, each capability's immediate work runs, then the alarm is reset", () =>
    inScratchObject(async (ctx) => {
      let pending = 1;
      const changed: string[] = [];
      const alarms = new SingleAlarm(ctx, () => Date.now());
      alarms.register(
        { nextAlarmMs: () => null, onAlarm: () => {} },
        {
          nextAlarmMs: (nowMs) => (pending > 0 ? nowMs + 1_000 : null),
          onAlarm: () => {},
          onChange: async () => {
            changed.push("delivered");
            pending = 0;
          },
        },
        dueAt(null),
      );
      await ctx.storage.setAlarm(Date.now() + 60_000);
      alarms.afterChange();
      await expect.poll(() => ctx.storage.getAlarm()).toBeNull();
      expect(changed).toEqual(["delivered"]);
    }));

  it("a change's backstop sets the alarm within BACKSTOP_MS, unless this object set it to ring sooner", () =>
    inScratchObject(async (ctx) => {
      const alarms = new SingleAlarm(ctx, () => Date.now());
      alarms.register(dueAt(Date.now() + 200));
      const before = Date.now();
      alarms.backstop();
      const backstop = (await ctx.storage.getAlarm())!;
      expect(backstop).toBeGreaterThanOrEqual(before + BACKSTOP_MS);
      expect(backstop).toBeLessThanOrEqual(Date.now() + BACKSTOP_MS);
      await alarms.reschedule();
      const sooner = (await ctx.storage.getAlarm())!;
      expect(sooner).toBeLessThan(backstop);
      alarms.backstop();
      expect(await ctx.storage.getAlarm()).toBe(sooner);
    }));
});
