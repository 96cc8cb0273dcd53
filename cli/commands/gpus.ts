// `gpu gpus`: GPU models, their price per GPU-hour and how many are free now.
import { Command } from "@commander-js/extra-typings";
import { ok } from "../../client/index.ts";
import type { Factory } from "../factory.ts";
import { dollars, printJson, printTable } from "../format.ts";
import { JSON_HELP } from "../options.ts";

export function gpusCommand(f: Factory) {
  return new Command("gpus")
    .description("List GPU models with their price per GPU-hour and how many are free now")
    .option("--json", JSON_HELP)
    .action(async (options) => {
      const answer = await ok((await f.client()).GET("/v1/gpus"));
      if (options.json) return printJson(f.io, answer);
      printTable(
        f.io,
        ["MODEL", "NAME", "VRAM", "PER GPU-HOUR", "FREE", "MAX PER LAUNCH"],
        answer.gpus.map((g) => [g.model, g.display_name, `${g.vram_gb} GB`, dollars(g.price_hour_micros), String(g.free_gpus), String(g.max_per_server)]),
      );
    });
}
