// `gpu rm <id>`: destroys an instance and its data, after a confirmation on a terminal.
import { Command } from "@commander-js/extra-typings";
import { confirmOrRefuse } from "../confirm.ts";
import type { Factory } from "../factory.ts";
import { JSON_HELP } from "../options.ts";
import { runAction } from "./instance-action.ts";

export function rmCommand(f: Factory) {
  return new Command("rm")
    .description("Destroy an instance: its container and data are removed for good")
    .argument("<id>", "instance id (i-...)")
    .option("-y, --yes", "do not ask for confirmation (needed when not on a terminal)")
    .option("--json", `${JSON_HELP} (the instance as read after destroying)`)
    .action(async (id, options) => {
      if (!options.yes) {
        await confirmOrRefuse(f, `Destroy ${id} and delete its data?`, `destroying ${id} deletes its data: pass --yes to confirm`, "not destroyed");
      }
      await runAction(f, id, options, "destroy");
    });
}
