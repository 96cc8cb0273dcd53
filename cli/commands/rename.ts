// `gpu rename <id> <label>`: sets an instance's label.
import { ok } from "../../client/index.ts";
import type { Factory } from "../factory.ts";
import { printJson } from "../format.ts";
import { JSON_HELP } from "../options.ts";
import { instanceCommand } from "./instance-command.ts";

export function renameCommand(f: Factory) {
  return instanceCommand("rename", "Set an instance's label (at most 64 characters; \"\" clears it)")
    .argument("<label>", "the new label")
    .option("--json", JSON_HELP)
    .action(async (id, label, options) => {
      const api = await f.client();
      const instance = await ok(api.PATCH("/v1/instances/{id}", { params: { path: { id } }, body: { label } }));
      if (options.json) return printJson(f.io, instance);
      if (f.io.isStdoutTty) f.io.out(`✓ Renamed ${id} to "${instance.label}"`);
    });
}
