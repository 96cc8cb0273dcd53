// Usage history as the CLI prints it: a row per series with its last point, mean, highest and trend.
import { describe, expect, it } from "vitest";
import type { InstanceMetrics } from "../client/index.ts";
import { latestGpuMemory, latestGpuUtil, metricsRows, sparkline } from "./metrics-text.ts";

const gpuPoint = (t: number, util: number | null, max: number | null = util) => ({
  t: new Date(t * 10_000).toISOString(), util_percent: util, util_percent_max: max, memory_used_mib: 10_240, memory_used_mib_max: 12_288,
  memory_total_mib: 24_564, power_w: 250.4, power_w_max: 300, temperature_c: 60.6, temperature_c_max: 70,
});
const METRICS: InstanceMetrics = {
  window: "1h", interval_s: 10,
  gpus: [{ index: 2, points: [gpuPoint(0, 10, 40), gpuPoint(1, null), gpuPoint(2, 30)] }, { index: 5, points: [gpuPoint(2, 90)] }],
  container: [{ t: new Date(0).toISOString(), cpu_percent: 150, cpu_percent_max: 210, memory_used_mib: 2048, memory_used_mib_max: 3072 }],
};

describe("usage history as text", () => {
  it("draws a trend between its own lowest and highest, a gap where a point has no value", () => {
    expect(sparkline([0, 50, 100, null, 100])).toBe("▁▅█ █");
    expect(sparkline([7, 7])).toBe("▁▁");
    expect(sparkline([null])).toBe("");
    expect(sparkline(Array.from({ length: 40 }, (_, i) => i))).toHaveLength(30);
  });

  it("sums each series up: now, mean of the points, highest sample, trend; a series never sampled has no row", () => {
    const rows = metricsRows(METRICS);
    expect(rows.map((row) => row[0])).toEqual([
      "gpu 2 util", "gpu 2 memory", "gpu 2 power", "gpu 2 temperature", "gpu 5 util", "gpu 5 memory", "gpu 5 power", "gpu 5 temperature", "cpu", "memory",
    ]);
    expect(rows[0]).toEqual(["gpu 2 util", "30%", "20%", "40%", "▁ █"]);
    expect(rows[1]).toEqual(["gpu 2 memory", "10 GiB of 24 GiB", "10 GiB of 24 GiB", "12 GiB of 24 GiB", "▁▁▁"]);
    expect(rows[2]!.slice(1, 4)).toEqual(["250 W", "250 W", "300 W"]);
    expect(rows[3]!.slice(1, 4)).toEqual(["61 °C", "61 °C", "70 °C"]);
    expect(rows.at(-2)).toEqual(["cpu", "150% of a core", "150% of a core", "210% of a core", "▁"]);
    expect(rows.at(-1)).toEqual(["memory", "2 GiB", "2 GiB", "3 GiB", "▁"]);
  });

  it("says an instance's latest GPU utilisation and memory over all its GPUs, for gpu top", () => {
    expect(latestGpuUtil(METRICS)).toBe(60);
    expect(latestGpuMemory(METRICS)).toBe("20 of 48 GiB");
    const none: InstanceMetrics = { window: "1h", interval_s: 10, gpus: [], container: [] };
    expect([latestGpuUtil(none), latestGpuMemory(none)]).toEqual([null, null]);
  });
});
