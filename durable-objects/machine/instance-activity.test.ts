// When an instance was last used, in workerd's SQLite on a frozen clock: exact while the object lives
// on, never earlier than the last use after it restarts (the stored time is written a minute ahead),
// at most one row written per instance per minute however much traffic, a stream counting while open,
// and a host's return counting for every instance.
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { clock } from "../../core/clock.ts";
import { advanceClock, freezeClockInEachTest } from "../../test/support/workerd/test-clock.ts";
import { sqlFor } from "../sql.ts";
import { ACTIVITY_WRITE_AHEAD_MS, InstanceActivity } from "./instance-activity.ts";

freezeClockInEachTest();

const A = "i-aaaaaaaaaaaaaaaa";
const B = "i-bbbbbbbbbbbbbbbb";
const T0 = Date.UTC(2026, 10, 23, 12, 0, 0);
const at = (ms: number) => advanceClock(ms - clock.now());
let objects = 0;

function withSql<T>(body: (sql: ReturnType<typeof sqlFor>) => T) {
  return runInDurableObject(env.MACHINES.getByName(`instance-activity-${++objects}`), (_, state) => body(sqlFor(state.storage)));
}

describe("instance activity", () => {
  it("is exact while the object lives on; after a restart never earlier than the last use; a row written at most once a minute", async () => {
    await withSql((sql) => {
      const stored = () => sql<{ subject: string; active_ms: number }>`SELECT subject, active_ms FROM activity ORDER BY subject`;
      const activity = new InstanceActivity(sql);
      expect(activity.lastActiveMs(A)).toBeNull();
      at(T0);
      activity.touch(A);
      for (let s = 1; s <= 59; s++) {
        at(T0 + s * 1_000);
        activity.touch(A);
      }
      expect(activity.lastActiveMs(A)).toBe(T0 + 59_000);
      expect(stored()).toEqual([{ subject: A, active_ms: T0 + ACTIVITY_WRITE_AHEAD_MS }]);
      // The object restarts: what it held in memory is gone, the stored time covers the last use.
      const restarted = new InstanceActivity(sql);
      expect(restarted.lastActiveMs(A)).toBe(T0 + ACTIVITY_WRITE_AHEAD_MS);
      at(T0 + 61_000);
      restarted.touch(A);
      expect(restarted.lastActiveMs(A)).toBe(T0 + 61_000);
      expect(restarted.lastActiveMs(B)).toBeNull();
      restarted.forget(A);
      expect([restarted.lastActiveMs(A), stored()]).toEqual([null, []]);
    });
  });

  it("an open stream keeps the instance in use until it closes, which counts as use; a host's return counts for every instance", async () => {
    await withSql((sql) => {
      const activity = new InstanceActivity(sql);
      at(T0);
      activity.streamOpened(A);
      activity.streamOpened(A);
      at(T0 + 30 * 60_000);
      activity.streamClosed(A);
      expect(activity.inUse(A)).toBe(true);
      at(T0 + 40 * 60_000);
      activity.streamClosed(A);
      expect([activity.inUse(A), activity.lastActiveMs(A)]).toEqual([false, T0 + 40 * 60_000]);
      at(T0 + 50 * 60_000);
      activity.hostReturned();
      expect([activity.lastActiveMs(A), activity.lastActiveMs(B)]).toEqual([T0 + 50 * 60_000, T0 + 50 * 60_000]);
    });
  });
});
