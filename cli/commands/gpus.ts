// `gpu gpus`: GPU models, their price per GPU-hour and how many are free now.
import { ok } from "../../client/index.ts";
import type { Factory } from "../factory.ts";
import { dollars, printTable } from "../format.ts";
import { readCommand } from "./read-command.ts";

export function gpusCommand(f: Factory) {
  return readCommand(
    f, "gpus", "List GPU models with their price per GPU-hour and how many are free now",
    (api) => ok(api.GET("/v1/gpus")),
    (answer) => printTable(
      f.io,
      ["MODEL", "NAME", "VRAM", "PER GPU-HOUR", "FREE", "MAX PER LAUNCH"],
      answer.gpus.map((g) => [g.model, g.display_name, `${g.vram_gb} GB`, dollars(g.price_hour_micros), String(g.free_gpus), String(g.max_per_server)]),
    ),
  );
}
