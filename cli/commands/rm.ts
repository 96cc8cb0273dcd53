// `gpu rm <id>`: destroys an instance and its data, after a confirmation on a terminal.
import { createInterface } from "node:readline/promises";
import { Command } from "@commander-js/extra-typings";
import { CliError } from "../errors.ts";
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
      if (!options.yes) await confirm(f, id);
      await runAction(f, id, options, "destroy");
    });
}

async function confirm(f: Factory, id: string): Promise<void> {
  if (!f.io.isStdinTty || !f.io.isStderrTty) throw new CliError(`destroying ${id} deletes its data: pass --yes to confirm`);
  const prompt = createInterface({ input: f.io.stdin, output: f.io.stderr });
  const answer = await prompt.question(`Destroy ${id} and delete its data? [y/N] `);
  prompt.close();
  if (!/^y(es)?$/i.test(answer.trim())) throw new CliError("not destroyed");
}
