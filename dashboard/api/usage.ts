// This month's usage, summed by the API from the hourly charge rows: by day and instance, and by
// instance; the volumes' storage apart, by day and volume, and by volume.
import { useQuery } from "@tanstack/react-query";
import { ok, type components } from "../../client/index.ts";
import { api } from "./client.ts";
import { usageKey } from "./keys.ts";

export type UsageItem = components["schemas"]["UsageReport"]["items"][number];
export type StorageUsageItem = components["schemas"]["UsageReport"]["storage"][number];

/** The API's default range is this month up to today (UTC). */
export const useMonthUsage = (group: "day" | "instance") =>
  useQuery({
    queryKey: [...usageKey, group],
    queryFn: () => ok(api.GET("/v1/billing/usage", { params: { query: { group } } })),
    refetchInterval: 60_000,
  });
