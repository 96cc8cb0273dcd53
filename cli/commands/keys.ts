// `gpu keys ls|create|revoke`: the account's API keys, with the scopes, instances and expiry each
// holds. A new key is printed once, as the API shows it once; a list shows prefixes, never a key.
import { Command } from "@commander-js/extra-typings";
import { ok, type components } from "../../client/index.ts";
import { confirmOrRefuse } from "../confirm.ts";
import type { Factory } from "../factory.ts";
import { printJson, printTable } from "../format.ts";
import { expiryAfter, lifetime } from "../key-expiry.ts";
import { JSON_HELP } from "../options.ts";
import { readCommand } from "./read-command.ts";

/** A scope as typed: the API checks it, and its refusal names the field and the scopes there are. */
type Scope = NonNullable<components["schemas"]["CreateKey"]["scopes"]>[number];
const SCOPES_HELP = "instances:read|use|write, volumes:read|write, billing:read|write, account:read|write (write implies use implies read)";

const repeat = (value: string, previous: string[] = []): string[] => [...previous, value];

export function keysCommand(f: Factory) {
  return new Command("keys")
    .description("Manage your API keys: ls, create, revoke")
    .addCommand(listKeys(f))
    .addCommand(createKey(f))
    .addCommand(revokeKey(f));
}

function listKeys(f: Factory) {
  return readCommand(
    f, "ls", "List your live API keys: prefix, scopes, instances, expiry and last use (never the key)",
    (api) => ok(api.GET("/v1/keys")),
    (list) => printTable(
      f.io, ["ID", "NAME", "PREFIX", "SCOPES", "INSTANCES", "EXPIRES", "CREATED", "LAST USED"],
      list.items.map((k) => [
        k.id, k.name, k.prefix, k.scopes.join(","), k.instance_ids?.join(",") ?? "all", k.expires_at ?? "never", k.created_at, k.last_used_at ?? "never",
      ]),
    ),
  );
}

function createKey(f: Factory) {
  return new Command("create")
    .description("Create an API key; it is shown this once. It holds at most your role, and a key made with a key at most that key")
    .option("--name <name>", "a name to recognise the key by")
    .option("--scope <scope>", `what it may do (repeatable): ${SCOPES_HELP}; default: all your rights`, repeat)
    .option("--instance <id>", "an instance it is kept to (repeatable): it then reaches only these and launches none; default: every instance", repeat)
    .option("--expires <lifetime>", "when it stops working: 12h, 30d, 1y (at most a year); default: never", lifetime)
    .option("--json", JSON_HELP)
    .addHelpText("after", "\nExamples:\n  gpu keys create --name app-server --scope instances:use --instance i-abcdefghijklmnop --expires 90d\n  gpu keys create --name ci --scope instances:write --scope volumes:read --expires 30d")
    .action(async (options) => {
      const body = {
        ...(options.name === undefined ? {} : { name: options.name }),
        ...(options.scope ? { scopes: options.scope as Scope[] } : {}),
        ...(options.instance ? { instance_ids: options.instance } : {}),
        ...(options.expires === undefined ? {} : { expires_at: expiryAfter(options.expires, Date.now()) }),
      };
      const created = await ok((await f.client()).POST("/v1/keys", { body }));
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
