// GET /v1/metrics: the account's running instances and money in Prometheus' text format, for a
// Prometheus server to scrape with a key holding instances:read. The AccountDO admits the caller and
// names the instances and their machines; each machine is asked once for all of its instances' last
// sample, and one that does not answer leaves its instances without figures rather than failing the scrape.
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { accountOf, machineOf, type Env } from "../../../core/env.ts";
import { unwrap } from "../../../core/errors.ts";
import type { CurrentUsageAnswer } from "../../../durable-objects/contracts/current-usage.ts";
import type { MetricsInstance } from "../../../durable-objects/contracts/metrics-export.ts";
import type { ApiEnv } from "../context.ts";
import { accountFamilies } from "../metrics-export/account-families.ts";
import { EXPOSITION_CONTENT_TYPE, exposition } from "../metrics-export/exposition.ts";
import { validationHook } from "../validation.ts";
import { callerRoute } from "./caller-route.ts";

const exportRoute = callerRoute([], {
  method: "get", path: "/metrics", summary: "Running instances and the account's money, for Prometheus",
  description:
    "Prometheus' text exposition format (version 0.0.4). The account's `gpu_rental_account_balance_micros` and " +
    "`gpu_rental_account_month_spend_micros` (this UTC calendar month's instance and storage charges); " +
    "`gpu_rental_instance_running` (1) for each running instance; and from each one's host's last sample (at most a minute old) " +
    "per GPU (label `gpu`, its index) `gpu_rental_gpu_utilization_ratio`, `gpu_rental_gpu_memory_used_bytes`, " +
    "`gpu_rental_gpu_memory_total_bytes`, `gpu_rental_gpu_power_watts`, `gpu_rental_gpu_temperature_celsius`, and its container's " +
    "`gpu_rental_container_cpu_seconds_total` and `gpu_rental_container_memory_bytes`. Instance series carry `instance_id` and " +
    "`label`; a value the host could not read is left out. Stopped and destroyed instances are not shown.",
  responses: {
    200: {
      description: "The exposition",
      content: {
        "text/plain": {
          schema: z.string().openapi({
            example:
              '# HELP gpu_rental_gpu_utilization_ratio Fraction of the last sample period a kernel ran on the GPU (0 to 1)\n' +
              "# TYPE gpu_rental_gpu_utilization_ratio gauge\n" +
              'gpu_rental_gpu_utilization_ratio{instance_id="i-abcdefghijklmnop",label="llama",gpu="0"} 0.97\n',
          }),
        },
      },
    },
  },
});

export const metricsExportRoutes = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook }).openapi(exportRoute, async (c) => {
  const { sources } = unwrap(await accountOf(c.env, c.var.accountId).metricsSources(c.var.credential));
  const usage = await currentUsage(c.env, sources.instances);
  return c.body(exposition(accountFamilies(sources, usage)), 200, { "content-type": EXPOSITION_CONTENT_TYPE });
});

/** The last sample of each instance, one call per machine. */
async function currentUsage(env: Env, instances: MetricsInstance[]): Promise<CurrentUsageAnswer> {
  const byMachine = new Map<number, string[]>();
  for (const { id, machine_id } of instances) byMachine.set(machine_id, [...(byMachine.get(machine_id) ?? []), id]);
  const answers = await Promise.all([...byMachine].map(([machineId, ids]) =>
    machineOf(env, machineId).currentUsage(ids).catch((): CurrentUsageAnswer => ({}))));
  return Object.assign({}, ...answers) as CurrentUsageAnswer;
}
