// `gpu accounts ls|switch`: the accounts this CLI can act on, one saved key each (`gpu login` keeps the
// key it is given beside those of other accounts), and which of them the other commands use. Each
// key is asked for its account and role (GET /v1/me), so a list is what the service says now, and a
// key that stopped working is named, never used.
import { Command } from "@commander-js/extra-typings";
import { createGpuClient, ok } from "../../client/index.ts";
import { loadConfig, sameKey, savedKeys, useSavedKey, type Config, type SavedKey } from "../config.ts";
import { CliError, describeError } from "../errors.ts";
import type { Factory } from "../factory.ts";
import { printDone, printJson, printTable } from "../format.ts";
import { JSON_HELP, QUIET_HELP } from "../options.ts";

export function accountsCommand(f: Factory) {
  return new Command("accounts")
    .description("The accounts you can act on, one saved key each (`gpu login` adds one): ls, switch")
    .addCommand(listAccounts(f))
    .addCommand(switchAccount(f));
}

type Me = Awaited<ReturnType<typeof readMe>>;

interface Reached {
  key: SavedKey;
  me: Me;
}

const readMe = (key: Config) => ok(createGpuClient({ baseUrl: key.apiUrl, apiKey: key.apiKey }).GET("/v1/me"));

function listAccounts(f: Factory) {
  return new Command("ls")
    .description("List the accounts your saved keys reach, with your role in each; * marks the one in use")
    .option("--json", "print {current, accounts} as JSON: the id of the account in use, and each account as /v1/me lists it ({id, name, role})")
    .action(async (options) => {
      const current = await loadConfig(f.env).catch(() => null);
      const keys = await savedKeys(f.env);
      // A key given by GPU_API_KEY is in use whether saved or not.
      if (current && !keys.some((k) => sameKey(k, current))) keys.unshift({ ...current, accountId: null });
      if (keys.length === 0) throw new CliError("no saved keys: run `gpu login` with a key of each account");
      const reached = await reachAll(f, keys);
      const inUse = reached.find((r) => current && sameKey(r.key, current));
      const accounts = reached.map(({ me }) => ({ id: me.account.id, name: me.account.name, role: me.account.role }));
      if (options.json) printJson(f.io, { current: inUse?.me.account.id ?? null, accounts });
      else printTable(f.io, ["", "ID", "NAME", "ROLE"], reached.map((r, i) => [r === inUse ? "*" : "", accounts[i]!.id, accounts[i]!.name, accounts[i]!.role]));
    });
}

function switchAccount(f: Factory) {
  return new Command("switch")
    .description("Use another account from now on: the saved key of that account becomes the one commands send")
    .argument("<account>", "the account's id (acc-…) or name, from `gpu accounts ls`")
    .option("--json", `${JSON_HELP} (/v1/me with the account's key)`)
    .option("-q, --quiet", QUIET_HELP)
    .action(async (name, options) => {
      if (f.env.GPU_API_KEY) throw new CliError("GPU_API_KEY is set, and it wins over the saved keys: unset it to switch accounts");
      const reached = await reachAll(f, await savedKeys(f.env));
      const byId = reached.filter((r) => r.me.account.id === name);
      const matches = byId.length > 0 ? byId : reached.filter((r) => r.me.account.name === name);
      if (matches.length === 0) throw new CliError(`no saved key reaches an account ${name}: \`gpu accounts ls\` lists them; \`gpu login\` with a key of it adds it`);
      if (matches.length > 1) throw new CliError(`${matches.length} accounts are named ${name} (${matches.map((r) => r.me.account.id).join(", ")}): name one by its id`);
      const [{ key, me }] = matches as [Reached];
      await useSavedKey(f.env, key);
      if (options.json) return printJson(f.io, me);
      printDone(f.io, `Using ${me.account.name} (${me.account.id}) as ${me.account.role}`, options);
    });
}

/** Each key's account and role; a key refused or a service unreachable is said on stderr and left out. */
async function reachAll(f: Factory, keys: SavedKey[]): Promise<Reached[]> {
  const answers = await Promise.all(keys.map((key) => readMe(key).then((me) => ({ key, me }), (error: unknown) => ({ key, error }))));
  const reached: Reached[] = [];
  for (const answer of answers) {
    if ("me" in answer) reached.push(answer);
    else f.io.err(`warning: the key saved for ${answer.key.accountId ?? "an account"} at ${answer.key.apiUrl} no longer works: ${describeError(answer.error, answer.key.apiUrl)}`);
  }
  return reached;
}
