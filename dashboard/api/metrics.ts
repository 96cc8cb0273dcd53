// An instance's usage history, read again as often as it can change: a new point every 10 s in the
// last hour, every minute over a day, every 10 minutes over a week.
import { useQuery } from "@tanstack/react-query";
import { ok, type InstanceMetrics } from "../../client/index.ts";
import { api } from "./client.ts";
import { metricsKey } from "./keys.ts";

export type { InstanceMetrics };
export type MetricsWindow = InstanceMetrics["window"];
export const METRICS_WINDOWS: readonly MetricsWindow[] = ["1h", "24h", "7d"];

const REFRESH_MS: Record<MetricsWindow, number> = { "1h": 10_000, "24h": 60_000, "7d": 600_000 };

export const useInstanceMetrics = (id: string, window: MetricsWindow) =>
  useQuery({
    queryKey: metricsKey(id, window),
    queryFn: () => ok(api.GET("/v1/instances/{id}/metrics", { params: { path: { id }, query: { window } } })),
    refetchInterval: REFRESH_MS[window],
  });
