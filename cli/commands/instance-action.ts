// `gpu start <id>` and `gpu stop <id>`, and what they share with rm: the API answers 204, so --json
// prints the instance as read after, and otherwise one line says what was done (none with --quiet).
import { ok } from "../../client/index.ts";
import type { Factory } from "../factory.ts";
import { printDone, printJson } from "../format.ts";
import { JSON_HELP, QUIET_HELP } from "../options.ts";
import { instanceCommand } from "./instance-command.ts";

const DONE = { stop: "Stopped", start: "Starting", destroy: "Destroyed" } as const;

export async function runAction(f: Factory, id: string, options: { json?: true; quiet?: true }, action: keyof typeof DONE): Promise<void> {
  const api = await f.client();
  const params = { params: { path: { id } } };
  if (action === "destroy") await ok(api.DELETE("/v1/instances/{id}", params));
  else await ok(api.POST(action === "stop" ? "/v1/instances/{id}/stop" : "/v1/instances/{id}/start", params));
  if (options.json) return printJson(f.io, await ok(api.GET("/v1/instances/{id}", params)));
  printDone(f.io, `${DONE[action]} ${id}`, options);
}

export function startCommand(f: Factory) {
  return actionCommand(f, "start", "Start a stopped instance again on its machine (fails if its GPUs were taken meanwhile)", "starting");
}

export function stopCommand(f: Factory) {
  return actionCommand(f, "stop", "Stop an instance: the container and billing stop, the GPUs are released, the data is kept", "stopping");
}

function actionCommand(f: Factory, action: "start" | "stop", description: string, doing: string) {
  return instanceCommand(action, description)
    .option("--json", `${JSON_HELP} (the instance as read after ${doing})`)
    .option("-q, --quiet", QUIET_HELP)
    .action((id, options) => runAction(f, id, options, action));
}
