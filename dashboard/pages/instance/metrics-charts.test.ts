// The instance page's charts from an answer of the metrics API: one time axis, gaps where a series has no point.
import { describe, expect, it } from "vitest";
import { chartsOf } from "./metrics-charts.ts";

const gpuPoint = (t: string, util: number) => ({
  t, util_percent: util, util_percent_max: util, memory_used_mib: 2048, memory_used_mib_max: 2048, memory_total_mib: 24564,
  power_w: 300, power_w_max: 300, temperature_c: 60, temperature_c_max: 60,
});
const T1 = "2026-11-23T12:00:00.000Z";
const T2 = "2026-11-23T12:00:10.000Z";

describe("the instance page's charts", () => {
  it("puts every series on one time axis, a line per GPU, with a gap where a GPU has no point", () => {
    const charts = chartsOf({
      window: "1h", interval_s: 10,
      gpus: [{ index: 0, points: [gpuPoint(T1, 50), gpuPoint(T2, 70)] }, { index: 3, points: [gpuPoint(T2, 10)] }],
      container: [{ t: T1, cpu_percent: 150, cpu_percent_max: 200, memory_used_mib: 512, memory_used_mib_max: 600 }],
    });
    expect(charts.map((c) => [c.title, c.unit])).toEqual([["GPU utilisation", "%"], ["GPU memory", "GiB"], ["GPU power", "W"], ["CPU", "% of a core"], ["Memory", "GiB"]]);
    const [util, memory, , cpu, ram] = charts;
    expect(util).toEqual({
      title: "GPU utilisation", unit: "%", max: 100, times: [Date.parse(T1) / 1000, Date.parse(T2) / 1000],
      lines: [{ label: "GPU 0", values: [50, 70] }, { label: "GPU 3", values: [null, 10] }],
    });
    expect(memory!.lines[0]!.values).toEqual([2, 2]);
    expect(cpu!.lines).toEqual([{ label: "CPU", values: [150, null] }]);
    expect(ram!.lines).toEqual([{ label: "Memory", values: [0.5, null] }]);
  });
});
