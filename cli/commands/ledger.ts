// `gpu ledger`: the account's billing history, newest first, a page at a time (the API's cursor), or
// every page with --all.
import { Command } from "@commander-js/extra-typings";
import { ok, type GpuClient } from "../../client/index.ts";
import type { Factory } from "../factory.ts";
import { dollars, printJson, printTable } from "../format.ts";
import { integer, JSON_HELP } from "../options.ts";

type LedgerPage = Awaited<ReturnType<typeof readPage>>;

const readPage = (api: GpuClient, limit: number, cursor: string | undefined) =>
  ok(api.GET("/v1/billing/ledger", { params: { query: { limit, ...(cursor === undefined ? {} : { cursor }) } } }));

export function ledgerCommand(f: Factory) {
  return new Command("ledger")
    .description("Show your billing history (credits, payments, one charge per instance and hour), newest first; a pending line leads while instances run")
    .option("--limit <n>", "entries per page, 1 to 200", integer, 20)
    .option("--cursor <cursor>", "start at this page (the next_cursor a previous page gave)")
    .option("--all", "follow every page to the first entry")
    .option("--json", `${JSON_HELP} (with --all, one page per line)`)
    .action(async (options) => {
      const api = await f.client();
      let page: LedgerPage = await readPage(api, options.limit, options.cursor);
      for (;;) {
        print(f, page, options.json === true, options.all === true);
        if (!options.all || page.next_cursor === null) break;
        page = await readPage(api, options.limit, page.next_cursor);
      }
      if (!options.all && !options.json && page.next_cursor !== null && f.io.isStderrTty) {
        f.io.err(`More: gpu ledger --cursor ${page.next_cursor} (or --all)`);
      }
    });
}

function print(f: Factory, page: LedgerPage, json: boolean, all: boolean): void {
  if (json) return all ? f.io.out(JSON.stringify(page)) : printJson(f.io, page);
  printTable(
    f.io,
    ["DATE", "KIND", "AMOUNT", "BALANCE AFTER", "INSTANCE", "NOTE"],
    page.items.map((e) => [e.created_at, e.pending ? "pending" : e.kind, dollars(e.amount_micros), dollars(e.balance_after_micros), e.instance_id ?? "", e.note]),
  );
}
