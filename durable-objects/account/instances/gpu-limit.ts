// How many GPUs one account may hold at once, in any live status (creating, starting, running): so
// that a small balance cannot hold much of the fleet, launch after launch (nothing is billed while
// an image pulls). The AccountDO is the authority: launches and starts run in its queue one at a
// time, so the count it checks is the count it changes. ACCOUNT_MAX_GPUS (16) unless the operator
// set this account's own limit.
import { fail, type Failure } from "../../../core/errors.ts";
import type { Env } from "../../../core/env.ts";
import { defaultMaxGpus } from "../../contracts/accounts.ts";
import type { Sql } from "../../sql.ts";

export function maxGpus(sql: Sql, env: Env): number {
  const own = sql<{ max_gpus: number | null }>`SELECT max_gpus FROM account`[0]?.max_gpus ?? null;
  return own ?? defaultMaxGpus(env);
}

/** Sets the operator's limit for this account (null: back to ACCOUNT_MAX_GPUS). */
export function limitGpus(sql: Sql, limit: number | null): void {
  sql`UPDATE account SET max_gpus = ${limit}`;
}

/** 409 conflict when `adding` more GPUs would take the account over its limit. */
export function gpuLimitRefusal(sql: Sql, env: Env, adding: number): Failure | null {
  const held = sql<{ held: number | null }>`SELECT SUM(gpu_count) AS held FROM instances
    WHERE status IN ('creating', 'starting', 'running') AND machine_id IS NOT NULL`[0]?.held ?? 0;
  const limit = maxGpus(sql, env);
  if (held + adding <= limit) return null;
  return fail("conflict", `the account may hold at most ${limit} GPUs at once (max_gpus) and holds ${held}; this needs ${adding} more: stop or destroy an instance first`);
}
