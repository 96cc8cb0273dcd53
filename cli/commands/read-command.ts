// A command that reads one answer from the API and prints it: the API's JSON unchanged with --json,
// else as the command renders it for people (balance, catalog, gpus, ls, keys ls).
import { Command } from "@commander-js/extra-typings";
import type { GpuClient } from "../../client/index.ts";
import type { Factory } from "../factory.ts";
import { printJson } from "../format.ts";
import { JSON_HELP } from "../options.ts";

export function readCommand<T>(
  f: Factory, name: string, description: string, read: (api: GpuClient) => Promise<T>, render: (answer: T) => void,
) {
  return new Command(name)
    .description(description)
    .option("--json", JSON_HELP)
    .action(async (options) => {
      const answer = await read(await f.client());
      if (options.json) return printJson(f.io, answer);
      render(answer);
    });
}
