// `gpu start <id>`: starts a stopped (or failed) instance again on its machine.
import { Command } from "@commander-js/extra-typings";
import type { Factory } from "../factory.ts";
import { JSON_HELP } from "../options.ts";
import { runAction } from "./instance-action.ts";

export function startCommand(f: Factory) {
  return new Command("start")
    .description("Start a stopped instance again on its machine (fails if its GPUs were taken meanwhile)")
    .argument("<id>", "instance id (i-...)")
    .option("--json", `${JSON_HELP} (the instance as read after starting)`)
    .action((id, options) => runAction(f, id, options, "start"));
}
