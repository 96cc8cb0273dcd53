// The MachineDO's usage history in workerd's SQLite, on a frozen clock: summaries exact at interval
// boundaries, what reads add before the alarm has summarised, an instance's figures removed with it,
// bounded rows and the writes of a simulated week of an 8-GPU machine, and the answers the idle stop
// needs (the last sample's mean utilisation, the peak since a time).
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { clock } from "../../core/clock.ts";
import type { InstanceUsage } from "../../protocol/messages.ts";
import { meterStorage } from "../../test/support/workerd/storage-meter.ts";
import { advanceClock, freezeClockInEachTest } from "../../test/support/workerd/test-clock.ts";
import { sqlFor } from "../sql.ts";
import { METRICS_TIERS, MetricsStore } from "./metrics-store.ts";

freezeClockInEachTest();

const A = "i-aaaaaaaaaaaaaaaa";
const B = "i-bbbbbbbbbbbbbbbb";
/** Monday 2026-11-23 12:00:00 UTC: a minute and a 10-minute boundary. */
const T0 = Date.UTC(2026, 10, 23, 12, 0, 0);
const MINUTE = 60_000;

let objects = 0;

/** Runs `body` with a fresh store in a MachineDO's own storage; `live` says which instances the machine keeps. */
function withStore<T>(body: (store: MetricsStore, sql: ReturnType<typeof sqlFor>, state: DurableObjectState) => T | Promise<T>, live = (_: string) => true) {
  return runInDurableObject(env.MACHINES.getByName(`metrics-store-${++objects}`), (_, state) => {
    const sql = sqlFor(state.storage);
    return body(new MetricsStore(sql, live), sql, state);
  });
}

/** Sets the frozen clock to `ms`. */
const at = (ms: number) => advanceClock(ms - clock.now());

function usage(instanceId: string, utils: number[], cpu: number | null = 50, firstIndex = 0): InstanceUsage {
  return {
    instance_id: instanceId, cpu_percent: cpu, memory_used_mib: 1024,
    gpus: utils.map((util, i) => ({
      index: firstIndex + i, util_percent: util, memory_used_mib: 1000 * util, memory_total_mib: 81559,
      power_w: 100 + util, power_limit_w: 700, temperature_c: 40, sm_clock_mhz: 1980,
    })),
  };
}

describe("the MachineDO's usage history", () => {
  it("keeps a point per 10 s; its 1-min and 10-min summaries are exact at the boundaries, weighted by samples, with maxima", async () => {
    await withStore((store) => {
      // Minute 12:00: six samples at 10 %; the last one 1 ms before 12:01 still counts there. Minute 12:01: one at 80 %.
      for (let i = 0; i < 5; i++) (at(T0 + i * 10_000), store.record([usage(A, [10])]));
      at(T0 + MINUTE - 1);
      store.record([usage(A, [10])]);
      at(T0 + MINUTE);
      store.record([usage(A, [80])]);
      at(T0 + 10 * MINUTE);
      store.onAlarm();
      const hour = store.read(A, "1h");
      expect(hour).toMatchObject({ window: "1h", interval_s: 10 });
      expect(hour.gpus[0]!.points.map((p) => [p.t, p.util_percent])).toEqual([
        ...[0, 10, 20, 30, 40, 50].map((s) => [new Date(T0 + s * 1000).toISOString(), 10]),
        [new Date(T0 + MINUTE).toISOString(), 80],
      ]);
      const day = store.read(A, "24h");
      expect(day.gpus).toEqual([{
        index: 0,
        points: [
          { t: new Date(T0).toISOString(), util_percent: 10, util_percent_max: 10, memory_used_mib: 10_000, memory_used_mib_max: 10_000, memory_total_mib: 81559, power_w: 110, power_w_max: 110, temperature_c: 40, temperature_c_max: 40 },
          { t: new Date(T0 + MINUTE).toISOString(), util_percent: 80, util_percent_max: 80, memory_used_mib: 80_000, memory_used_mib_max: 80_000, memory_total_mib: 81559, power_w: 180, power_w_max: 180, temperature_c: 40, temperature_c_max: 40 },
        ],
      }]);
      // Ten minutes: the mean of the seven samples, (6 × 10 + 80) / 7, not the mean of the two minutes.
      const week = store.read(A, "7d");
      expect(week).toMatchObject({ window: "7d", interval_s: 600 });
      expect(week.gpus[0]!.points).toEqual([expect.objectContaining({ t: new Date(T0).toISOString(), util_percent: 20, util_percent_max: 80 })]);
      expect(week.container).toEqual([{ t: new Date(T0).toISOString(), cpu_percent: 50, cpu_percent_max: 50, memory_used_mib: 1024, memory_used_mib_max: 1024 }]);
    });
  });

  it("reads what the alarm has not summarised yet from the finer rows, and the alarm is due when an interval closes", async () => {
    await withStore((store) => {
      at(T0 + 5_000);
      store.record([usage(A, [40, 60])]);
      at(T0 + 25_000);
      store.record([usage(A, [20, 0], null)]);
      // No alarm yet: the open minute and 10 minutes come from the samples.
      expect(store.read(A, "24h").gpus.map((g) => g.points.map((p) => [p.util_percent, p.util_percent_max]))).toEqual([[[30, 40]], [[30, 60]]]);
      expect(store.read(A, "7d").gpus[1]!.points).toEqual([expect.objectContaining({ util_percent: 30, util_percent_max: 60 })]);
      expect(store.read(A, "24h").container).toEqual([expect.objectContaining({ cpu_percent: 50, cpu_percent_max: 50 })]);
      // The alarm (real time) is due when the minute closes: 35 s from now.
      expect(store.nextAlarmMs(1_000_000)).toBe(1_000_000 + 35_000);
      at(T0 + MINUTE);
      store.onAlarm();
      expect(store.read(A, "24h").gpus[0]!.points).toEqual([expect.objectContaining({ util_percent: 30 })]);
      expect(store.nextAlarmMs(0)).toBe(9 * MINUTE);
    });
  });

  it("an instance's figures go with it: removed from every tier on destroy, others kept; a machine's unknown instances are never stored", async () => {
    const live = new Set([A, B]);
    await withStore((store, sql) => {
      at(T0);
      store.record([usage(A, [50]), usage(B, [70], 10, 1), usage("i-cccccccccccccccc", [90], 10, 2)]);
      at(T0 + 10 * MINUTE);
      store.onAlarm();
      store.forget(A);
      for (const window of ["1h", "24h", "7d"] as const) {
        expect(store.read(A, window)).toEqual({ window, interval_s: expect.any(Number), gpus: [], container: [] });
        expect(store.read(B, window).gpus.map((g) => g.index)).toEqual([1]);
      }
      expect(sql<{ n: number }>`SELECT COUNT(*) AS n FROM metrics WHERE body LIKE '%i-a%' OR body LIKE '%i-c%'`[0]!.n).toBe(0);
      // B's container is dropped from the machine (not destroyed through its account): its figures go with the next 10-min summary.
      live.delete(B);
      at(T0 + 19 * MINUTE);
      store.onAlarm();
      expect(store.read(B, "1h").gpus).toHaveLength(1);
      at(T0 + 20 * MINUTE);
      store.onAlarm();
      expect(sql<{ n: number }>`SELECT COUNT(*) AS n FROM metrics`[0]!.n).toBe(0);
    }, (id) => live.has(id));
  });

  it("answers the idle stop's questions: the last sample's mean utilisation, and the peak since a time, at the finest tier reaching back", async () => {
    await withStore((store) => {
      expect(store.lastGpuUtil(A)).toBeNull();
      at(T0);
      store.record([usage(A, [90, 0])]);
      for (let minute = 1; minute <= 90; minute++) {
        at(T0 + minute * MINUTE);
        store.record([usage(A, [minute === 30 ? 4 : 2, 1])]);
        store.onAlarm();
      }
      expect(store.lastGpuUtil(A)).toEqual({ at_ms: T0 + 90 * MINUTE, util_percent: 1.5 });
      expect(store.lastGpuUtil(B)).toBeNull();
      // From an hour and a half ago (the 1-min tier): the 90 % of 12:00 counts; from 12:01 on, the highest is 4 %.
      expect(store.gpuUtilPeakSince(A, T0)).toEqual({ peak_percent: 90, samples: 91 });
      expect(store.gpuUtilPeakSince(A, T0 + MINUTE)).toEqual({ peak_percent: 4, samples: 90 });
      // From 40 minutes ago (10-s samples): under 5 % all along, and 2 % since 12:31.
      expect(store.gpuUtilPeakSince(A, T0 + 31 * MINUTE)).toEqual({ peak_percent: 2, samples: 60 });
      expect(store.gpuUtilPeakSince(B, T0)).toEqual({ peak_percent: null, samples: 0 });
    });
  });

  it("a machine gone quiet: each tier's rows are deleted by one alarm once its newest has aged out, then no alarm is due", async () => {
    await withStore((store, sql) => {
      at(T0);
      store.record([usage(A, [50])]);
      at(T0 + 10 * MINUTE);
      store.onAlarm();
      const rows = () => sql<{ tier: number; n: number }>`SELECT tier, COUNT(*) AS n FROM metrics GROUP BY tier ORDER BY tier`.map((r) => [r.tier, r.n]);
      expect(rows()).toEqual([[0, 1], [1, 1], [2, 1]]);
      const due = (now: number) => (at(now), store.nextAlarmMs(now));
      for (const [tier, keepMs] of METRICS_TIERS.map((t, i) => [i, t.keepMs] as const)) {
        const dueAt = due(T0 + 10 * MINUTE)!;
        expect(dueAt).toBe(T0 + keepMs + 1);
        at(dueAt);
        store.onAlarm();
        expect(rows().map(([t]) => t)).not.toContain(tier);
      }
      expect(store.nextAlarmMs(T0)).toBeNull();
    });
  });

  // The cost an 8-GPU machine pays, measured (docs/benchmarks.md, "Metrics storage"): per sample one
  // row written whatever the instances, a summary row a minute and one every 10 minutes, no deletes.
  it("a week of an 8-GPU machine (two instances of 4 GPUs) sampled every 10 s: 1 row written per sample, bounded rows and bytes", async () => {
    await withStore(async (store, sql, state) => {
      const meter = await meterStorage(env.MACHINES.getByName(`metrics-store-${objects}`));
      try {
        const samples = 7 * 24 * 360;
        for (let n = 0; n < samples; n++) {
          at(T0 + n * 10_000);
          const load = (n * 7) % 100;
          store.record([usage(A, [load, load, load, load], 120), usage(B, [100 - load, 0, 33.5, 12], 85.25, 4)]);
          if (n % 6 === 0) store.onAlarm();
        }
        at(T0 + samples * 10_000);
        store.onAlarm();
        const written = meter.rowsWritten();
        expect(written).toBe(samples + samples / 6 + samples / 60);
        const rows = sql<{ tier: number; n: number; bytes: number }>`SELECT tier, COUNT(*) AS n, SUM(LENGTH(body)) AS bytes FROM metrics GROUP BY tier ORDER BY tier`;
        expect(rows.map((r) => [r.tier, r.n])).toEqual([[0, 360], [1, 1440], [2, 1008]]);
        const bytes = rows.reduce((sum, r) => sum + r.bytes, 0);
        expect(bytes).toBeLessThan(4 * 1024 * 1024);
        console.info(JSON.stringify({ rows_written_per_minute: (written / samples) * 6, rows: 2808, body_bytes: bytes, database_bytes: state.storage.sql.databaseSize }));
        expect(store.read(A, "7d").gpus[0]!.points).toHaveLength(1008);
      } finally {
        await meter.stop();
      }
    });
  }, 120_000);
});
