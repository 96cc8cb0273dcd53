// `gpu balance`: the account's prepaid balance, settled up to now.
import { ok } from "../../client/index.ts";
import type { Factory } from "../factory.ts";
import { dollars } from "../format.ts";
import { readCommand } from "./read-command.ts";

export function balanceCommand(f: Factory) {
  return readCommand(f, "balance", "Show the account's balance (the API's /v1/me)", (api) => ok(api.GET("/v1/me")), (me) =>
    f.io.out(f.io.isStdoutTty ? `${dollars(me.balance_micros)} (account ${me.account.id})` : dollars(me.balance_micros)));
}
