// `gpu idle-stop <id> <minutes|never>`: sets or turns off an instance's idle stop; its idle time counts from now.
import { InvalidArgumentError } from "@commander-js/extra-typings";
import { ok } from "../../client/index.ts";
import type { Factory } from "../factory.ts";
import { printDone, printJson } from "../format.ts";
import { integer, JSON_HELP, QUIET_HELP } from "../options.ts";
import { instanceCommand } from "./instance-command.ts";

export function idleStopCommand(f: Factory) {
  return instanceCommand("idle-stop", "Stop an instance once its GPUs stayed under 5 % with no traffic for <minutes> (5 to 1440), or never")
    .argument("<minutes>", "minutes idle before it is stopped, or `never`", minutesOrNever)
    .option("--json", JSON_HELP)
    .option("-q, --quiet", QUIET_HELP)
    .action(async (id, minutes, options) => {
      const api = await f.client();
      const instance = await ok(api.PATCH("/v1/instances/{id}", { params: { path: { id } }, body: { idle_stop_minutes: minutes } }));
      if (options.json) return printJson(f.io, instance);
      printDone(f.io, minutes === null ? `${id} is never stopped for being idle` : `${id} stops after ${minutes} min idle`, options);
    });
}

function minutesOrNever(value: string): number | null {
  if (value.trim().toLowerCase() === "never") return null;
  try {
    return integer(value);
  } catch {
    throw new InvalidArgumentError("must be a whole number of minutes or `never`");
  }
}
