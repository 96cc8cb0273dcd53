// /v1/instances/{id}/metrics: an instance's GPU, CPU and memory history (key or session). The
// AccountDO admits the caller and names the machine; the MachineDO, which keeps the history as the
// host reported it, answers.
import { OpenAPIHono } from "@hono/zod-openapi";
import { accountOf, machineOf } from "../../../core/env.ts";
import { unwrap } from "../../../core/errors.ts";
import type { ApiEnv } from "../context.ts";
import { InstanceIdParam, json } from "../schemas/common.ts";
import { InstanceMetricsBody, MetricsQuery } from "../schemas/metrics.ts";
import { validationHook } from "../validation.ts";
import { callerRoute } from "./caller-route.ts";

const metricsRoute = callerRoute([400, 404], {
  method: "get", path: "/instances/{id}/metrics", summary: "GPU, CPU and memory over time",
  description:
    "The instance's usage as its host sampled it every 10 s: per GPU its utilisation, memory, power and temperature, and " +
    "the container's CPU and memory. `window=1h` (default) gives a point per 10 s, `24h` a point per minute, `7d` a point " +
    "per 10 minutes, each point the mean of its interval's samples with their highest beside it, oldest first. Intervals " +
    "while the instance did not run have no point. Kept while the instance is; destroying it removes its history.",
  request: { params: InstanceIdParam, query: MetricsQuery },
  responses: { 200: json(InstanceMetricsBody, "The instance's usage history") },
});

export const metricsRoutes = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook }).openapi(metricsRoute, async (c) => {
  const { id } = c.req.valid("param");
  const { instance } = unwrap(await accountOf(c.env, c.var.accountId).getInstance(c.var.credential, id));
  const metrics = await machineOf(c.env, instance.machine_id).instanceMetrics(id, c.req.valid("query").window ?? "1h");
  return c.json(metrics, 200);
});
