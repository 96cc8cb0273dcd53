// The sampling query's parsers on recorded real output (fixtures/SOURCES.md): the published tables
// (header and units), and the same GPUs' answer to our own noheader,nounits query.
import { describe, expect, it } from "vitest";
import { projectNoUnits, recordedTable } from "../../test/support/agent/recorded-nvidia-smi.ts";
import { GPU_METRICS_FIELDS, gpuMetricsArgs, parseGpuMetricsLine, parseGpuMetricsTable } from "./gpu-metrics-csv.ts";

const RECORDED = [
  ["metrics-h100-80gb-hbm3-idle.csv", { index: 0, util_percent: 0, memory_used_mib: 0, memory_total_mib: 81559, power_w: 69.85, power_limit_w: 700, temperature_c: 41, sm_clock_mhz: 345 }],
  ["metrics-h100-80gb-hbm3-load.csv", { index: 0, util_percent: 100, memory_used_mib: 19818, memory_total_mib: 81559, power_w: 631.95, power_limit_w: 700, temperature_c: 59, sm_clock_mhz: 1980 }],
  ["metrics-h200-load.csv", { index: 0, util_percent: 100, memory_used_mib: 32362, memory_total_mib: 143771, power_w: 627.4, power_limit_w: 700, temperature_c: 52, sm_clock_mhz: 1980 }],
  ["metrics-rtx4080-super-idle.csv", { index: 0, util_percent: 0, memory_used_mib: 596, memory_total_mib: 16376, power_w: 26.2, power_limit_w: 320, temperature_c: 43, sm_clock_mhz: 210 }],
  ["metrics-rtx4080-super-load.csv", { index: 0, util_percent: 7, memory_used_mib: 1474, memory_total_mib: 16376, power_w: 84.24, power_limit_w: 320, temperature_c: 46, sm_clock_mhz: 2805 }],
  // MIG mode: the whole GPU's utilisation is not reported.
  ["metrics-h100-mig-load.csv", { index: 0, util_percent: null, memory_used_mib: 11125, memory_total_mib: 81559, power_w: 433.78, power_limit_w: 700, temperature_c: 53, sm_clock_mhz: 1980 }],
] as const;

describe("the GPU metrics query", () => {
  it("asks for its fields once, looping every interval, without header or units", () => {
    expect(gpuMetricsArgs(10_000)).toEqual([
      "--query-gpu=index,utilization.gpu,memory.used,memory.total,power.draw,power.limit,temperature.gpu,clocks.sm",
      "--format=csv,noheader,nounits", "-lms", "10000",
    ]);
  });

  it.each(RECORDED)("reads the published table of %s (header, units, every other field ignored)", (file, sample) => {
    expect(parseGpuMetricsTable(recordedTable(file))).toEqual([sample]);
  });

  it.each(RECORDED)("reads the same GPU's line of our own query from %s", (file, sample) => {
    const [line] = projectNoUnits(recordedTable(file), GPU_METRICS_FIELDS);
    expect(parseGpuMetricsLine(line!)).toEqual(sample);
  });

  it("takes [N/A], [Not Supported] and [Unknown Error] as no value (hand-made line in the documented format)", () => {
    expect(parseGpuMetricsLine("3, [N/A], 1024, 24564, [Not Supported], [N/A], 45, [Unknown Error]")).toEqual({
      index: 3, util_percent: null, memory_used_mib: 1024, memory_total_mib: 24564, power_w: null, power_limit_w: null, temperature_c: 45, sm_clock_mhz: null,
    });
  });

  it("refuses a line that is not one of ours, saying why", () => {
    expect(parseGpuMetricsLine("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.")).toEqual({
      error: expect.stringContaining("has 1 fields, not 8"),
    });
    expect(parseGpuMetricsLine("GPU 0, 1, 2, 3, 4, 5, 6, 7")).toEqual({ error: expect.stringContaining("does not start with a GPU index") });
    expect(() => parseGpuMetricsTable("index, name\n0, NVIDIA L4")).toThrow("no utilization.gpu, memory.used");
  });
});
