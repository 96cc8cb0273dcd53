// `gpu ssh-keys ls|add|rm`: the public keys the account's SSH connections may use. `add` reads
// ~/.ssh/id_ed25519.pub, then ~/.ssh/id_rsa.pub, unless given a file.
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { Command } from "@commander-js/extra-typings";
import { ok } from "../../client/index.ts";
import type { Factory } from "../factory.ts";
import { printJson, printTable } from "../format.ts";
import { JSON_HELP } from "../options.ts";
import { readCommand } from "./read-command.ts";

const DEFAULT_KEY_FILES = ["id_ed25519.pub", "id_rsa.pub"];

export function sshKeysCommand(f: Factory) {
  return new Command("ssh-keys")
    .description("Manage the SSH public keys that open `gpu ssh` sessions: ls, add, rm")
    .addCommand(listSshKeys(f))
    .addCommand(addSshKey(f))
    .addCommand(removeSshKey(f));
}

function listSshKeys(f: Factory) {
  return readCommand(
    f, "ls", "List your SSH public keys with their fingerprints and last use (to the minute)",
    (api) => ok(api.GET("/v1/ssh-keys")),
    (list) => printTable(f.io, ["ID", "NAME", "TYPE", "FINGERPRINT", "ADDED", "LAST USED"],
      list.items.map((k) => [k.id, k.name, k.type, k.fingerprint, k.created_at, k.last_used_at ?? "never"])),
  );
}

/** The key line in `path`, else in the first default file that exists under ~/.ssh. */
async function readKeyLine(f: Factory, path: string | undefined): Promise<{ line: string; from: string }> {
  const home = f.env.HOME ?? homedir();
  const candidates = path === undefined ? DEFAULT_KEY_FILES.map((name) => join(home, ".ssh", name)) : [path];
  for (const from of candidates) {
    try {
      return { line: await readFile(from, "utf8"), from };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" || path !== undefined) throw new Error(`cannot read ${from}: ${(error as Error).message}`);
    }
  }
  throw new Error(`no public key at ${candidates.join(" or ")}: make one with ssh-keygen -t ed25519, or name a .pub file`);
}

function addSshKey(f: Factory) {
  return new Command("add")
    .description("Add a public key (default ~/.ssh/id_ed25519.pub, then ~/.ssh/id_rsa.pub)")
    .argument("[path]", "a .pub file")
    .option("--name <name>", "a name to recognise the key by (default: the key's comment)")
    .option("--json", JSON_HELP)
    .action(async (path, options) => {
      const { line, from } = await readKeyLine(f, path);
      const body = options.name === undefined ? { public_key: line } : { public_key: line, name: options.name };
      const added = await ok((await f.client()).POST("/v1/ssh-keys", { body }));
      if (options.json) return printJson(f.io, added);
      f.io.out(`✓ Added ${added.id} from ${from}: ${added.fingerprint}`);
    });
}

function removeSshKey(f: Factory) {
  return new Command("rm")
    .description("Remove an SSH key: the next connection with it is refused")
    .argument("<key-id>", "the key's id (sshk_..., from `gpu ssh-keys ls`)")
    .option("--json", `${JSON_HELP} (the keys after removing)`)
    .action(async (keyId, options) => {
      const api = await f.client();
      await ok(api.DELETE("/v1/ssh-keys/{id}", { params: { path: { id: keyId } } }));
      if (options.json) return printJson(f.io, await ok(api.GET("/v1/ssh-keys")));
      if (f.io.isStdoutTty) f.io.out(`✓ Removed ${keyId}`);
    });
}
