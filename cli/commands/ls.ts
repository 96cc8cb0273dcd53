// `gpu ls`: the account's instances, newest first, with their GPUs' utilisation now ("-" when not running).
import { ok } from "../../client/index.ts";
import type { Factory } from "../factory.ts";
import { dollars, printTable } from "../format.ts";
import { readCommand } from "./read-command.ts";

export function lsCommand(f: Factory) {
  return readCommand(
    f, "ls", "List your instances, newest first (destroyed ones stay listed for 7 days)",
    (api) => ok(api.GET("/v1/instances")),
    (list) => {
      if (list.items.length === 0 && f.io.isStdoutTty) return f.io.out("No instances. Start one with `gpu launch`.");
      printTable(
        f.io,
        ["ID", "LABEL", "STATUS", "GPUS", "GPU UTIL", "TEMPLATE", "MODEL", "PER HOUR", "CREATED"],
        list.items.map((i) => [
          i.id, i.label, i.status, `${i.gpu_count} × ${i.gpu_model}`, i.gpu_util_percent === null ? "-" : `${i.gpu_util_percent}%`,
          i.template, i.model, dollars(i.price_hour_micros), i.created_at,
        ]),
      );
    },
  );
}
