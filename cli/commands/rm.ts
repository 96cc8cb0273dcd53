// `gpu rm <id>`: destroys an instance and its data, after a confirmation on a terminal.
import { confirmOrRefuse } from "../confirm.ts";
import type { Factory } from "../factory.ts";
import { JSON_HELP, QUIET_HELP } from "../options.ts";
import { runAction } from "./instance-action.ts";
import { instanceCommand } from "./instance-command.ts";

export function rmCommand(f: Factory) {
  return instanceCommand("rm", "Destroy an instance: its container and data are removed for good")
    .option("-y, --yes", "do not ask for confirmation (needed when not on a terminal)")
    .option("--json", `${JSON_HELP} (the instance as read after destroying)`)
    .option("-q, --quiet", QUIET_HELP)
    .action(async (id, options) => {
      if (!options.yes) {
        await confirmOrRefuse(f, `Destroy ${id} and delete its data?`, `destroying ${id} deletes its data: pass --yes to confirm`, "not destroyed");
      }
      await runAction(f, id, options, "destroy");
    });
}
