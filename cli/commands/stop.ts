// `gpu stop <id>`: stops the container and the billing; the data is kept.
import { Command } from "@commander-js/extra-typings";
import type { Factory } from "../factory.ts";
import { JSON_HELP } from "../options.ts";
import { runAction } from "./instance-action.ts";

export function stopCommand(f: Factory) {
  return new Command("stop")
    .description("Stop an instance: the container and billing stop, the GPUs are released, the data is kept")
    .argument("<id>", "instance id (i-...)")
    .option("--json", `${JSON_HELP} (the instance as read after stopping)`)
    .action((id, options) => runAction(f, id, options, "stop"));
}
