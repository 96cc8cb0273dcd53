// `gpu usage`: a month's running time and cost, by instance (or by day and instance), summed by the
// API from the hourly charge rows.
import { Command, InvalidArgumentError } from "@commander-js/extra-typings";
import { ok } from "../../client/index.ts";
import type { Factory } from "../factory.ts";
import { dollars, printJson, printTable } from "../format.ts";
import { JSON_HELP } from "../options.ts";

/** `2026-11` → the first and last day of that month, as the API's `from` and `to`. */
export function monthRange(value: string): { from: string; to: string } {
  const match = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(value);
  if (!match) throw new InvalidArgumentError("must be a month YYYY-MM");
  const [year, month] = [Number(match[1]), Number(match[2])];
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return { from: `${value}-01`, to: `${value}-${String(lastDay).padStart(2, "0")}` };
}

function grouping(value: string): "day" | "instance" {
  if (value !== "day" && value !== "instance") throw new InvalidArgumentError("must be day or instance");
  return value;
}

/** 5400 → "1.50": hours with two decimals, from whole seconds without floating point. */
const hours = (seconds: number) => `${Math.floor(seconds / 3600)}.${String(Math.floor(((seconds % 3600) * 100) / 3600)).padStart(2, "0")}`;

export function usageCommand(f: Factory) {
  return new Command("usage")
    .description("Show a month's running time and cost per instance (this month by default)")
    .option("--month <YYYY-MM>", "the month to sum (UTC)", monthRange)
    .option("--by <group>", "instance (one row each), or day (a row per day and instance)", grouping, "instance" as const)
    .option("--json", JSON_HELP)
    .action(async (options) => {
      const api = await f.client();
      const report = await ok(api.GET("/v1/billing/usage", { params: { query: { group: options.by, ...options.month } } }));
      if (options.json) return printJson(f.io, report);
      printTable(
        f.io,
        [...(options.by === "day" ? ["DAY"] : []), "INSTANCE", "LABEL", "GPUS", "HOURS", "COST"],
        report.items.map((item) => [
          ...(options.by === "day" ? [item.day ?? ""] : []),
          item.instance_id, item.label, `${item.gpu_count} × ${item.gpu_model}`, hours(item.seconds), dollars(item.amount_micros),
        ]),
      );
      if (f.io.isStdoutTty) f.io.out(`Total: ${dollars(report.total_micros)}`);
    });
}
