// `gpu audit`: who changed what in the account, newest first, a page at a time (the API's cursor), or
// every page with --all; narrowed to an actor and an action.
import { Command } from "@commander-js/extra-typings";
import { ok, type GpuClient } from "../../client/index.ts";
import type { Factory } from "../factory.ts";
import { printJson, printTable } from "../format.ts";
import { integer, JSON_HELP } from "../options.ts";

type AuditPage = Awaited<ReturnType<typeof readPage>>;

interface AuditFilter {
  actor?: string;
  action?: string;
}

const readPage = (api: GpuClient, limit: number, cursor: string | undefined, filter: AuditFilter) =>
  ok(api.GET("/v1/audit-log", { params: { query: { limit, ...(cursor === undefined ? {} : { cursor }), ...filter } } }));

export function auditCommand(f: Factory) {
  return new Command("audit")
    .description("Show who changed what in the account (people, API keys, the operator, the system), newest first")
    .option("--actor <actor>", "only changes by this actor: an email, a key's name or id, a user id, or user, key, operator or system")
    .option("--action <action>", "only this action (instance.launch), or its group (instance)")
    .option("--limit <n>", "entries per page, 1 to 200", integer, 20)
    .option("--cursor <cursor>", "start at this page (the next_cursor a previous page gave)")
    .option("--all", "follow every page to the oldest entry")
    .option("--json", `${JSON_HELP} (with --all, one page per line)`)
    .action(async (options) => {
      const api = await f.client();
      const filter: AuditFilter = { ...(options.actor ? { actor: options.actor } : {}), ...(options.action ? { action: options.action } : {}) };
      let page: AuditPage = await readPage(api, options.limit, options.cursor, filter);
      for (;;) {
        print(f, page, options.json === true, options.all === true);
        if (!options.all || page.next_cursor === null) break;
        page = await readPage(api, options.limit, page.next_cursor, filter);
      }
      if (!options.all && !options.json && page.next_cursor !== null && f.io.isStderrTty) {
        f.io.err(`More: gpu audit --cursor ${page.next_cursor} (or --all)`);
      }
    });
}

function print(f: Factory, page: AuditPage, json: boolean, all: boolean): void {
  if (json) return all ? f.io.out(JSON.stringify(page)) : printJson(f.io, page);
  printTable(
    f.io,
    ["DATE", "ACTOR", "ACTION", "TARGET", "DETAIL", "IP"],
    page.items.map((e) => [e.at, e.actor.type === "key" ? `key ${e.actor.label}` : e.actor.label, e.action, e.target.id ?? e.target.type, e.detail, e.ip ?? ""]),
  );
}
