// `gpu ls`: the account's instances, newest first.
import { Command } from "@commander-js/extra-typings";
import { ok } from "../../client/index.ts";
import type { Factory } from "../factory.ts";
import { dollars, printJson, printTable } from "../format.ts";
import { JSON_HELP } from "../options.ts";

export function lsCommand(f: Factory) {
  return new Command("ls")
    .description("List your instances, newest first (destroyed ones stay listed for 7 days)")
    .option("--json", JSON_HELP)
    .action(async (options) => {
      const list = await ok((await f.client()).GET("/v1/instances"));
      if (options.json) return printJson(f.io, list);
      if (list.items.length === 0 && f.io.isStdoutTty) return f.io.out("No instances. Start one with `gpu launch`.");
      printTable(
        f.io,
        ["ID", "LABEL", "STATUS", "GPUS", "TEMPLATE", "MODEL", "PER HOUR", "CREATED"],
        list.items.map((i) => [
          i.id, i.label, i.status, `${i.gpu_count} × ${i.gpu_model}`, i.template, i.model, dollars(i.price_hour_micros), i.created_at,
        ]),
      );
    });
}
