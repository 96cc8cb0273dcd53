// The typed client of the GPU rental API: what the CLI, the dashboard and the end-to-end tests use.
export { GpuApiError } from "./api-error.ts";
export { createGpuClient, ok, type GpuClient, type GpuClientOptions } from "./client.ts";
export type { components, paths } from "./api-types.ts";
export type { RetryPolicy } from "./retry.ts";

import type { components } from "./api-types.ts";

export type Instance = components["schemas"]["Instance"];
export type LaunchRequest = components["schemas"]["LaunchRequest"];
export type InstanceEvent = components["schemas"]["EventList"]["items"][number];
export type InstanceMetrics = components["schemas"]["InstanceMetrics"];
export type Volume = components["schemas"]["Volume"];
export type Snapshot = components["schemas"]["Snapshot"];
export { dollarsToMicros } from "./money.ts";
