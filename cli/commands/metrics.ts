// `gpu metrics <id> [--window 1h|24h|7d]`: an instance's GPU, CPU and memory over a window, a row
// per series (last point, mean, highest, trend); --json prints the API's answer.
import { ok, type InstanceMetrics } from "../../client/index.ts";
import type { Factory } from "../factory.ts";
import { printJson, printTable } from "../format.ts";
import { METRICS_HEADER, metricsRows, WINDOW_WORDS } from "../metrics-text.ts";
import { JSON_HELP } from "../options.ts";
import { instanceCommand } from "./instance-command.ts";

export function metricsCommand(f: Factory) {
  return instanceCommand("metrics", "Show an instance's GPU utilisation, memory, power and temperature, CPU and memory over a window")
    .option("--window <window>", "1h (a point per 10 s), 24h (per minute) or 7d (per 10 minutes)", "1h")
    .option("--json", JSON_HELP)
    .action(async (id, options) => {
      const api = await f.client();
      // The API checks the window and names it when it is wrong.
      const window = options.window as InstanceMetrics["window"];
      const metrics = await ok(api.GET("/v1/instances/{id}/metrics", { params: { path: { id }, query: { window } } }));
      if (options.json) return printJson(f.io, metrics);
      const rows = metricsRows(metrics);
      if (f.io.isStdoutTty) {
        if (rows.length === 0) return f.io.out(`No samples of ${id} in ${WINDOW_WORDS[metrics.window]}: its host samples it every 10 s while it runs.`);
        const points = Math.max(metrics.container.length, ...metrics.gpus.map((gpu) => gpu.points.length));
        f.io.out(`${id} over ${WINDOW_WORDS[metrics.window]}: ${points} points, one per ${metrics.interval_s} s`);
      }
      printTable(f.io, METRICS_HEADER, rows);
    });
}
