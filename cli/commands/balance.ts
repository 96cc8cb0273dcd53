// `gpu balance`: the account's prepaid balance, settled up to now.
import { Command } from "@commander-js/extra-typings";
import { ok } from "../../client/index.ts";
import type { Factory } from "../factory.ts";
import { dollars, printJson } from "../format.ts";
import { JSON_HELP } from "../options.ts";

export function balanceCommand(f: Factory) {
  return new Command("balance")
    .description("Show the account's balance (the API's /v1/me)")
    .option("--json", JSON_HELP)
    .action(async (options) => {
      const me = await ok((await f.client()).GET("/v1/me"));
      if (options.json) return printJson(f.io, me);
      f.io.out(f.io.isStdoutTty ? `${dollars(me.balance_micros)} (account ${me.account.id})` : dollars(me.balance_micros));
    });
}
