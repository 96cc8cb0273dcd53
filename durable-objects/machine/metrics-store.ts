// The usage history of this machine's instances, as their host reported it (this object is its
// authority): 10-s samples for an hour, 1-min summaries for a day, 10-min summaries for a week.
//
// Cost is per machine, not per GPU or instance: one row per tier and interval holds every instance's
// figures, so a sample is ONE row written whatever the machine runs, a minute's summary one more,
// ten minutes' one more. Each tier is a ring of slots (the interval's number modulo the slots its
// span needs) written by upsert: storage is bounded by construction (2,808 rows per machine) and
// nothing is deleted as time passes. Summaries are made by this object's alarm once their interval
// has closed (exact at the boundaries: an interval is [start, start + length) on the object's clock,
// which also stamps the samples); reads add what has not been summarised yet from the finer tier.
// Rows a ring would keep past their span (a machine gone quiet) are deleted at the next summary, or
// by one last alarm once a tier's newest row has aged out. An instance's figures go with its data:
// at once when it is destroyed, within 10 minutes when its container is dropped otherwise.
import { clock } from "../../core/clock.ts";
import { METRICS_WINDOWS, type InstanceMetrics, type MetricsWindow } from "../../core/metrics.ts";
import type { InstanceUsage } from "../../protocol/messages.ts";
import type { AlarmCapability } from "../outbox/single-alarm.ts";
import type { Sql } from "../sql.ts";
import { aggPart, bucketParts, meanUtil, mergeParts, peakUtil, rawPart, toPoints, type AggPart, type RawPart } from "./metrics-series.ts";

const SECOND = 1_000;

/** The tiers, finest first: tier 0 holds samples (RawPart), the others summaries (AggPart). */
export const METRICS_TIERS = [
  { intervalMs: 10 * SECOND, keepMs: 3_600 * SECOND },
  { intervalMs: 60 * SECOND, keepMs: 86_400 * SECOND },
  { intervalMs: 600 * SECOND, keepMs: 604_800 * SECOND },
] as const;

const tierOf = (window: MetricsWindow) => METRICS_TIERS.findIndex((tier) => tier.intervalMs === METRICS_WINDOWS[window].intervalS * SECOND);

type Body<Part> = Record<string, Part>;

export class MetricsStore implements AlarmCapability {
  private readonly sql: Sql;
  /** Whether an instance's figures are still wanted: its container is this machine's and not being destroyed. */
  private readonly isLive: (instanceId: string) => boolean;
  /** Each tier's newest row start (null: the tier is empty); read from storage once. */
  private newest: (number | null)[] | null = null;
  /**
   * For each summary tier, the time before which every interval is summarised: the last summary
   * run's boundary, or (after a restart) the end of the tier's newest row.
   */
  private readonly summarisedUntil: (number | null)[] = METRICS_TIERS.map(() => null);

  constructor(sql: Sql, isLive: (instanceId: string) => boolean) {
    this.sql = sql;
    this.isLive = isLive;
    sql`CREATE TABLE IF NOT EXISTS metrics (
      tier INTEGER NOT NULL, slot INTEGER NOT NULL, t_ms INTEGER NOT NULL, body TEXT NOT NULL,
      PRIMARY KEY (tier, slot)) WITHOUT ROWID`;
  }

  /** A sample of the machine's running containers: one row, the 10-s interval it falls in. */
  record(instances: InstanceUsage[]): void {
    const body: Body<RawPart> = Object.fromEntries(instances.filter((i) => this.isLive(i.instance_id)).map((i) => [i.instance_id, rawPart(i)]));
    if (Object.keys(body).length === 0) return;
    this.write(0, clock.now(), body);
  }

  /** Removes an instance's figures from every row that holds them. */
  forget(instanceId: string): void {
    const path = jsonPath(instanceId);
    this.sql`UPDATE metrics SET body = json_remove(body, ${path}) WHERE json_type(body, ${path}) IS NOT NULL`;
    this.sql`DELETE FROM metrics WHERE body = '{}'`;
    this.newest = null;
  }

  /** The instance's history over `window`, oldest first. */
  read(instanceId: string, window: MetricsWindow): InstanceMetrics {
    const tier = tierOf(window);
    const fromMs = clock.now() - METRICS_WINDOWS[window].spanMs;
    return { window, interval_s: METRICS_WINDOWS[window].intervalS, ...toPoints(this.summaries(instanceId, tier, fromMs)) };
  }

  /** The mean utilisation of the instance's GPUs in the machine's last sample, with its time; null when that sample does not name it. */
  lastGpuUtil(instanceId: string): { at_ms: number; util_percent: number | null } | null {
    const [last] = this.sql<{ t_ms: number; part: string | null }>`
      SELECT t_ms, json_extract(body, ${jsonPath(instanceId)}) AS part FROM metrics WHERE tier = 0 ORDER BY t_ms DESC LIMIT 1`;
    if (!last?.part) return null;
    return { at_ms: last.t_ms, util_percent: meanUtil(JSON.parse(last.part) as RawPart) };
  }

  /** The machine's last sample: the start of its interval and each instance's figures in it; null when none is kept. */
  lastSample(): { at_ms: number; parts: Body<RawPart> } | null {
    const [last] = this.sql<{ t_ms: number; body: string }>`SELECT t_ms, body FROM metrics WHERE tier = 0 ORDER BY t_ms DESC LIMIT 1`;
    return last ? { at_ms: last.t_ms, parts: JSON.parse(last.body) as Body<RawPart> } : null;
  }

  /**
   * The highest utilisation any of the instance's GPUs reached from the interval holding `sinceMs` on,
   * read at the finest tier that reaches back that far (so it may count a little before `sinceMs`,
   * never miss a sample after it), and how many samples that covers.
   */
  gpuUtilPeakSince(instanceId: string, sinceMs: number): { peak_percent: number | null; samples: number } {
    const { parts } = this.partsSince(instanceId, sinceMs);
    const peaks = parts.map(({ part }) => peakUtil(part)).filter((peak): peak is number => peak !== null);
    const samples = parts.reduce((sum, { part }) => sum + Math.max(0, ...part.g.map(([, util]) => util?.[2] ?? 0)), 0);
    return { peak_percent: peaks.length === 0 ? null : Math.max(...peaks), samples };
  }

  /**
   * When the instance's GPUs were last busy from `sinceMs` on: the end of the latest interval (read as
   * gpuUtilPeakSince reads) in which any of them reached `percent`; null when none did.
   */
  gpuBusyUntil(instanceId: string, sinceMs: number, percent: number): number | null {
    const { intervalMs, parts } = this.partsSince(instanceId, sinceMs);
    const busy = parts.filter(({ part }) => (peakUtil(part) ?? 0) >= percent);
    return busy.length === 0 ? null : busy[busy.length - 1]!.t + intervalMs;
  }

  // ---- the alarm: summaries as intervals close, and the rows past their span ----

  nextAlarmMs(alarmNowMs: number): number | null {
    const newest = this.newestRows();
    const due: number[] = [];
    for (let tier = 1; tier < METRICS_TIERS.length; tier++) {
      const below = newest[tier - 1] ?? null;
      const until = this.summarisedTo(tier);
      const { intervalMs } = METRICS_TIERS[tier]!;
      // When the first interval with rows still to summarise closes (at worst one interval early, after a gap).
      if (below !== null && below >= until) due.push(until === -Infinity ? Math.floor(below / intervalMs) * intervalMs + intervalMs : until + intervalMs);
    }
    newest.forEach((start, tier) => {
      if (start !== null) due.push(start + METRICS_TIERS[tier]!.keepMs + 1);
    });
    if (due.length === 0) return null;
    // The alarm runs on real time, this store on the object's clock (tests move it): keep the distance.
    return alarmNowMs + Math.max(0, Math.min(...due) - clock.now());
  }

  /**
   * Runs at every ring of the object's alarm (the heartbeat timeout's keeps it ringing while the agent
   * is connected, so samples set no alarm of their own); does nothing until an interval has closed.
   */
  onAlarm(): void {
    const nowMs = clock.now();
    const summarised = this.summarise(1, nowMs);
    // Every 10 minutes, with that summary, the figures of containers the machine dropped go.
    if (this.summarise(2, nowMs)) this.forgetGone();
    const agedOut = this.newestRows().some((start, tier) => start !== null && start < nowMs - METRICS_TIERS[tier]!.keepMs);
    if (summarised || agedOut) this.dropExpired(nowMs);
  }

  // ---- internals ----

  /** Summarises every closed interval of `tier` whose finer rows are not summarised yet; true when it ran. */
  private summarise(tier: number, nowMs: number): boolean {
    const { intervalMs } = METRICS_TIERS[tier]!;
    const from = this.summarisedTo(tier);
    const closedBefore = Math.floor(nowMs / intervalMs) * intervalMs;
    if (from >= closedBefore) return false;
    this.summarisedUntil[tier] = closedBefore;
    const rows = this.sql<{ t_ms: number; body: string }>`
      SELECT t_ms, body FROM metrics WHERE tier = ${tier - 1} AND t_ms >= ${from} AND t_ms < ${closedBefore}`;
    const byInterval = new Map<number, Body<AggPart>>();
    for (const { t_ms, body } of rows) {
      const start = Math.floor(t_ms / intervalMs) * intervalMs;
      const summary = byInterval.get(start) ?? {};
      for (const [instanceId, part] of Object.entries(JSON.parse(body) as Body<RawPart | AggPart>)) {
        const agg = tier === 1 ? aggPart(part as RawPart) : (part as AggPart);
        summary[instanceId] = summary[instanceId] ? mergeParts(summary[instanceId], agg) : agg;
      }
      byInterval.set(start, summary);
    }
    for (const [start, body] of [...byInterval].sort(([a], [b]) => a - b)) this.write(tier, start, body);
    return true;
  }

  /**
   * Forgets every instance with figures here whose container the machine no longer keeps (an instance
   * destroyed is forgotten at once; this catches a container dropped otherwise, such as an orphan).
   */
  private forgetGone(): void {
    const held = this.sql<{ instance_id: string }>`SELECT DISTINCT key AS instance_id FROM metrics, json_each(metrics.body)`;
    for (const { instance_id } of held) if (!this.isLive(instance_id)) this.forget(instance_id);
  }

  /** The time before which `tier` has summarised the tier below (-Infinity: nothing yet). */
  private summarisedTo(tier: number): number {
    const own = this.newestRows()[tier] ?? null;
    const fromRows = own === null ? -Infinity : own + METRICS_TIERS[tier]!.intervalMs;
    return Math.max(this.summarisedUntil[tier] ?? -Infinity, fromRows);
  }

  private dropExpired(nowMs: number): void {
    const newest = this.newestRows();
    METRICS_TIERS.forEach(({ keepMs }, tier) => {
      this.sql`DELETE FROM metrics WHERE tier = ${tier} AND t_ms < ${nowMs - keepMs}`;
      // Everything in a tier is at most as new as its newest row.
      if (newest[tier] !== null && newest[tier]! < nowMs - keepMs) newest[tier] = null;
    });
  }

  /** Upserts the row of the interval holding `atMs` in `tier`: its slot is the interval's number modulo the ring's size. */
  private write(tier: number, atMs: number, body: Body<RawPart | AggPart>): void {
    const { intervalMs, keepMs } = METRICS_TIERS[tier]!;
    const interval = Math.floor(atMs / intervalMs);
    const start = interval * intervalMs;
    const slot = interval % (keepMs / intervalMs);
    this.sql`INSERT INTO metrics (tier, slot, t_ms, body) VALUES (${tier}, ${slot}, ${start}, ${JSON.stringify(body)})
             ON CONFLICT (tier, slot) DO UPDATE SET t_ms = excluded.t_ms, body = excluded.body`;
    const newest = this.newestRows();
    newest[tier] = Math.max(newest[tier] ?? -Infinity, start);
  }

  /**
   * The instance's figures as summaries of `tier`'s intervals from `fromMs` on: that tier's rows, then
   * from each finer tier what the coarser ones have not summarised yet.
   */
  private summaries(instanceId: string, tier: number, fromMs: number): { t: number; part: AggPart }[] {
    const path = jsonPath(instanceId);
    const newest = this.newestRows();
    const parts: { t: number; part: AggPart }[] = [];
    let coveredUntil = -Infinity;
    for (let source = tier; source >= 0; source--) {
      const after = Math.max(Math.floor(fromMs / METRICS_TIERS[tier]!.intervalMs) * METRICS_TIERS[tier]!.intervalMs, coveredUntil);
      const rows = this.sql<{ t_ms: number; part: string }>`
        SELECT t_ms, json_extract(body, ${path}) AS part FROM metrics
        WHERE tier = ${source} AND t_ms >= ${after} AND json_type(body, ${path}) IS NOT NULL`;
      for (const { t_ms, part } of rows) parts.push({ t: t_ms, part: source === 0 ? aggPart(JSON.parse(part) as RawPart) : (JSON.parse(part) as AggPart) });
      const own = newest[source] ?? null;
      if (own !== null) coveredUntil = Math.max(coveredUntil, own + METRICS_TIERS[source]!.intervalMs);
    }
    return bucketParts(parts, METRICS_TIERS[tier]!.intervalMs);
  }

  /** The instance's summaries from `sinceMs` on at the finest tier that reaches back that far, with that tier's interval. */
  private partsSince(instanceId: string, sinceMs: number): { intervalMs: number; parts: { t: number; part: AggPart }[] } {
    const age = clock.now() - sinceMs;
    const reaching = METRICS_TIERS.findIndex((t) => age <= t.keepMs);
    const tier = reaching === -1 ? METRICS_TIERS.length - 1 : reaching;
    return { intervalMs: METRICS_TIERS[tier]!.intervalMs, parts: this.summaries(instanceId, tier, sinceMs) };
  }

  private newestRows(): (number | null)[] {
    this.newest ??= METRICS_TIERS.map((_, tier) => this.sql<{ newest: number | null }>`SELECT MAX(t_ms) AS newest FROM metrics WHERE tier = ${tier}`[0]?.newest ?? null);
    return this.newest;
  }
}

/** The JSON path of an instance's figures in a row (ids are `i-` and base32: nothing to escape). */
const jsonPath = (instanceId: string) => `$."${instanceId}"`;
