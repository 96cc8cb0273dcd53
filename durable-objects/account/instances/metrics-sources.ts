// GET /v1/metrics as the account answers it: its balance and this month's spend, and the running
// instances the caller reaches with the machines that hold their figures. The Worker asks each of those
// machines once for all of its instances; a stopped or destroyed instance is not listed.
import type { Env } from "../../../core/env.ts";
import type { MetricsSources } from "../../contracts/metrics-export.ts";
import type { Sql } from "../../sql.ts";
import { reaches, type Caller } from "../credentials/credential-check.ts";
import { monthSpendMicros } from "../money/month-spend.ts";

export function metricsSources(sql: Sql, env: Env, caller: Caller, balanceMicros: number, nowMs: number): MetricsSources {
  const running = sql<MetricsSources["instances"][number]>`
    SELECT id, label, gpu_model, machine_id FROM instances
    WHERE status = 'running' AND machine_id IS NOT NULL ORDER BY created_ms, id`;
  return {
    balance_micros: balanceMicros,
    month_spend_micros: monthSpendMicros(sql, env, nowMs),
    instances: running.filter((row) => reaches(caller, row.id)),
  };
}
