// The typed client of the GPU rental API: what the CLI, the dashboard and the end-to-end tests use.
export { GpuApiError } from "./api-error.ts";
export { createGpuClient, newIdempotencyKey, ok, type GpuClient, type GpuClientOptions } from "./client.ts";
export type { components, paths } from "./api-types.ts";
export type { RetryPolicy } from "./retry.ts";

import type { components } from "./api-types.ts";

type Schemas = components["schemas"];
export type Instance = Schemas["Instance"];
export type InstanceStatus = Instance["status"];
export type LaunchRequest = Schemas["LaunchRequest"];
export type InstanceEvent = Schemas["EventList"]["items"][number];
export type Gpu = Schemas["Gpu"];
export type Catalog = Schemas["Catalog"];
export type Me = Schemas["Me"];
