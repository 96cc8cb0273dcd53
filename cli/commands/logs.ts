// `gpu logs <id> [--tail N] [--follow]`: an instance's container log. Plain lines, as the API sends
// them; followed, the server-sent events rendered as lines until the container stops or Ctrl-C.
// --json prints each line's event object (`{t, stream, line}`) on a line of its own.
import { ok, type components } from "../../client/index.ts";
import type { Factory } from "../factory.ts";
import { integer, JSON_HELP } from "../options.ts";
import { interrupted } from "../sleep.ts";
import { sseEvents } from "../sse-events.ts";
import { instanceCommand } from "./instance-command.ts";

type LogEvent = components["schemas"]["LogEvent"];

export function logsCommand(f: Factory) {
  return instanceCommand("logs", "Show an instance's container log (stdout and stderr), oldest line first")
    .option("-n, --tail <n>", "how many of the last lines, 1 to 10000 (default 200)", integer)
    .option("-f, --follow", "keep printing new lines until the container stops or you interrupt (Ctrl-C)")
    .option("--json", `${JSON_HELP}: one {"t", "stream", "line"} object per line`)
    .action(async (id, options) => {
      const api = await f.client();
      const stop = interrupted();
      const events = Boolean(options.follow || options.json);
      const body = await ok(api.GET("/v1/instances/{id}/logs", {
        params: { path: { id }, query: { ...(options.tail !== undefined && { tail: options.tail }), ...(options.follow && { follow: "true" as const }) } },
        // Events carry each line's time and stream; asked for by Accept when not following.
        headers: events ? { accept: "text/event-stream" } : {},
        parseAs: "stream",
        signal: stop,
      })).catch((error: unknown) => (stop.aborted ? null : Promise.reject(error)));
      if (!body) return;
      try {
        if (!events) {
          for await (const chunk of body) f.io.stdout.write(chunk);
          return;
        }
        for await (const data of sseEvents(body)) {
          const event = JSON.parse(data) as LogEvent;
          f.io.out(options.json ? JSON.stringify(event) : event.line);
        }
      } catch (error) {
        // Ctrl-C ends a follow; anything else is a real failure.
        if (!stop.aborted) throw error;
      }
    });
}
