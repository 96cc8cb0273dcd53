// GET /v1/instances/{id}/metrics: its query and the instance's usage history (core/metrics.ts).
import { z } from "@hono/zod-openapi";
import { METRICS_WINDOWS, type MetricsWindow } from "../../../core/metrics.ts";

const WINDOWS = Object.keys(METRICS_WINDOWS) as [MetricsWindow, ...MetricsWindow[]];
const windowRule = `must be one of ${WINDOWS.join(", ")}`;

export const MetricsQuery = z.object({
  window: z.enum(WINDOWS, windowRule).optional().openapi({
    param: {
      name: "window", in: "query",
      description: "How far back: `1h` (a point per 10 s, the default), `24h` (a point per minute) or `7d` (a point per 10 minutes)",
    },
    example: "1h",
  }),
});

const mean = (what: string, unit: string) => z.number().nullable().openapi({ description: `${what} in ${unit}, the mean over the interval's samples; null when none was readable` });
const highest = (what: string, unit: string) => z.number().nullable().openapi({ description: `The highest ${what} in ${unit} sampled in the interval; null when none was readable` });
const at = z.string().openapi({ format: "date-time", description: "The start of the interval the point summarises", example: "2026-11-21T12:00:00.000Z" });

export const GpuPoint = z
  .object({
    t: at,
    util_percent: mean("GPU utilisation (time a kernel ran)", "percent"),
    util_percent_max: highest("GPU utilisation", "percent"),
    memory_used_mib: mean("GPU memory in use", "MiB"),
    memory_used_mib_max: highest("GPU memory in use", "MiB"),
    memory_total_mib: mean("The GPU's memory", "MiB"),
    power_w: mean("Board power draw", "watts"),
    power_w_max: highest("board power draw", "watts"),
    temperature_c: mean("GPU temperature", "degrees Celsius"),
    temperature_c_max: highest("GPU temperature", "degrees Celsius"),
  })
  .openapi("GpuMetricsPoint");

export const ContainerPoint = z
  .object({
    t: at,
    cpu_percent: mean("CPU use", "percent of one core (200 is two cores busy)"),
    cpu_percent_max: highest("CPU use", "percent of one core"),
    memory_used_mib: mean("The container's memory use", "MiB"),
    memory_used_mib_max: highest("container memory use", "MiB"),
  })
  .openapi("ContainerMetricsPoint");

export const InstanceMetricsBody = z
  .object({
    window: z.enum(WINDOWS).openapi({ description: "The window asked for" }),
    interval_s: z.number().int().openapi({ description: "Seconds each point summarises: 10, 60 or 600", example: 10 }),
    gpus: z
      .array(z.object({
        index: z.number().int().openapi({ description: "The GPU's index on its machine (nvidia-smi's), as the instance's GPUs were assigned" }),
        points: z.array(GpuPoint).openapi({ description: "Oldest first; an interval without a sample has no point" }),
      }))
      .openapi({ description: "One series per GPU of the instance that was sampled in the window, by index" }),
    container: z.array(ContainerPoint).openapi({ description: "The container's CPU and memory, oldest first" }),
  })
  .openapi("InstanceMetrics", {
    description: "An instance's usage while it ran, as its host sampled it every 10 s: kept at 10 s for an hour, per minute for a day, per 10 minutes for a week",
  });
