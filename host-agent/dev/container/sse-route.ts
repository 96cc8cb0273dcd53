// `GET /sse?n=N&interval_ms=M`: N server-sent events M ms apart, each flushed on its own, so tests can
// see that a proxy passes events through as they happen.
import type { ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";

export async function streamEvents(res: ServerResponse, count: number, intervalMs: number): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.flushHeaders();
  for (let i = 0; i < count && !res.destroyed; i++) {
    if (i > 0) await sleep(intervalMs);
    res.write(`data: {"i": ${i}}\n\n`);
  }
  res.end();
}
