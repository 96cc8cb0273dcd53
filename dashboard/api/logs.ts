// An instance's container logs through the typed client: the last lines as text, or followed as
// server-sent events until the container stops or the reader gives up (its AbortSignal).
import { ok } from "../../client/index.ts";
import { api } from "./client.ts";
import { takeEvents } from "./sse-lines.ts";

export interface LogLine {
  t: string;
  stream: "stdout" | "stderr";
  line: string;
}

export async function readLogTail(id: string, tail: number, signal: AbortSignal): Promise<string[]> {
  const text = await ok(api.GET("/v1/instances/{id}/logs", { params: { path: { id }, query: { tail } }, parseAs: "text", signal }));
  return text === "" ? [] : text.replace(/\n$/, "").split("\n");
}

/** Calls `onLine` for the last `tail` lines, then for each new one; resolves when the stream ends. */
export async function followLogs(id: string, tail: number, onLine: (line: LogLine) => void, signal: AbortSignal): Promise<void> {
  const stream = await ok(api.GET("/v1/instances/{id}/logs", { params: { path: { id }, query: { tail, follow: "true" } }, parseAs: "stream", signal }));
  if (!stream) return;
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let rest = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    const taken = takeEvents(rest + value);
    rest = taken.rest;
    for (const data of taken.data) onLine(JSON.parse(data) as LogLine);
  }
}
