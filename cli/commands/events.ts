// `gpu events <id> [--follow]`: an instance's event log, oldest first; --follow polls for new ones.
import { ok, type InstanceEvent } from "../../client/index.ts";
import type { Factory } from "../factory.ts";
import { printJson } from "../format.ts";
import { JSON_HELP } from "../options.ts";
import { interrupted, sleep } from "../sleep.ts";
import { instanceCommand } from "./instance-command.ts";

const FOLLOW_POLL_MS = 2_000;

export function eventsCommand(f: Factory) {
  return instanceCommand("events", "Show an instance's events, oldest first")
    .option("-f, --follow", "keep printing new events until interrupted (Ctrl-C)")
    .option("--json", `${JSON_HELP}; with --follow, one event object per line`)
    .action(async (id, options) => {
      const api = await f.client();
      const read = () => ok(api.GET("/v1/instances/{id}/events", { params: { path: { id } } }));
      const first = await read();
      if (options.json && !options.follow) return printJson(f.io, first);
      const print = (event: InstanceEvent) => f.io.out(options.json ? JSON.stringify(event) : `${event.created_at}  ${event.message}`);
      const seen = new SeenEvents();
      for (const event of seen.newOf(first.items)) print(event);
      if (!options.follow) return;
      const stop = interrupted();
      while (await sleep(FOLLOW_POLL_MS, stop)) {
        for (const event of seen.newOf((await read()).items)) print(event);
      }
    });
}

/** Events carry no id: an event is new when its (time, message) pair shows up more often than before. */
class SeenEvents {
  readonly #counts = new Map<string, number>();

  /** The events of a newest-first list not seen before, oldest first. */
  newOf(newestFirst: InstanceEvent[]): InstanceEvent[] {
    const counts = new Map<string, number>();
    const fresh: InstanceEvent[] = [];
    for (const event of [...newestFirst].reverse()) {
      const key = `${event.created_at}\n${event.message}`;
      const count = (counts.get(key) ?? 0) + 1;
      counts.set(key, count);
      if (count > (this.#counts.get(key) ?? 0)) {
        this.#counts.set(key, count);
        fresh.push(event);
      }
    }
    return fresh;
  }
}
