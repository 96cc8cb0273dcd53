// What the AccountDO and the MachineDO share about usage and idle stop. The MachineDO is the
// authority on what it sees (GPU samples, proxied and app traffic, whether its host is connected);
// the AccountDO, on each instance's setting and status, decides when an instance is stopped for
// being idle (durable-objects/account/instances/idle-stop.ts).

/** Every GPU of an instance under this utilisation (percent) counts as idle. */
export const IDLE_GPU_PERCENT = 5;

/** The range of `idle_stop_minutes`, in minutes. */
export const IDLE_STOP_MINUTES = { min: 5, max: 1440 } as const;

/** A last sample older than this is no current utilisation (the host samples every 10 s). */
export const CURRENT_SAMPLE_MS = 60_000;

/** The AccountDO asks whether `instance_id` has been idle since `from_ms` (its window's start). */
export interface IdleQuery {
  instance_id: string;
  from_ms: number;
}

/**
 * The MachineDO's answer, per instance: the time from which it has been idle without a break (never
 * before the query's `from_ms`), or null when it is not idle now (traffic in flight, a GPU busy in the
 * last sample, no current sample) or cannot be judged (its host is not connected, it is not running).
 */
export type IdleAnswer = Record<string, number | null>;
