// `gpu keys ls|create|revoke`: the account's API keys. A new key is printed once, as the API shows it
// once; a list shows prefixes and last use, never a key.
import { Command } from "@commander-js/extra-typings";
import { ok } from "../../client/index.ts";
import { confirmOrRefuse } from "../confirm.ts";
import type { Factory } from "../factory.ts";
import { printJson, printTable } from "../format.ts";
import { JSON_HELP } from "../options.ts";
import { readCommand } from "./read-command.ts";

export function keysCommand(f: Factory) {
  return new Command("keys")
    .description("Manage your API keys: ls, create, revoke")
    .addCommand(listKeys(f))
    .addCommand(createKey(f))
    .addCommand(revokeKey(f));
}

function listKeys(f: Factory) {
  return readCommand(
    f, "ls", "List your live API keys (their prefix and last use; never the key)",
    (api) => ok(api.GET("/v1/keys")),
    (list) => printTable(f.io, ["ID", "NAME", "PREFIX", "CREATED", "LAST USED"], list.items.map((k) => [k.id, k.name, k.prefix, k.created_at, k.last_used_at ?? "never"])),
  );
}

function createKey(f: Factory) {
  return new Command("create")
    .description("Create an API key; it is shown this once")
    .option("--name <name>", "a name to recognise the key by")
    .option("--json", JSON_HELP)
    .action(async (options) => {
      const created = await ok((await f.client()).POST("/v1/keys", { body: options.name === undefined ? {} : { name: options.name } }));
      if (options.json) return printJson(f.io, created);
      f.io.out(created.key);
      if (f.io.isStderrTty) f.io.err(`Created ${created.id}${created.name ? ` (${created.name})` : ""}: keep the key above now, it is not shown again.`);
    });
}

function revokeKey(f: Factory) {
  return new Command("revoke")
    .description("Revoke an API key: its next request is refused (the key in use may be revoked too)")
    .argument("<key-id>", "the key's id (key-..., from `gpu keys ls`)")
    .option("-y, --yes", "do not ask for confirmation (needed when not on a terminal)")
    .option("--json", `${JSON_HELP} (the live keys after revoking)`)
    .action(async (keyId, options) => {
      if (!options.yes) {
        await confirmOrRefuse(f, `Revoke ${keyId}? Anything using it stops working.`, `revoking ${keyId} cannot be undone: pass --yes to confirm`, "not revoked");
      }
      const api = await f.client();
      await ok(api.DELETE("/v1/keys/{id}", { params: { path: { id: keyId } } }));
      if (options.json) return printJson(f.io, await ok(api.GET("/v1/keys")));
      if (f.io.isStdoutTty) f.io.out(`✓ Revoked ${keyId}`);
    });
}
