// The CLI's server-sent event reader: data lines, comments, split chunks, multi-line data.
import { describe, expect, it } from "vitest";
import { sseEvents } from "./sse-events.ts";

async function eventsOf(chunks: string[]): Promise<string[]> {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });
  const events: string[] = [];
  for await (const data of sseEvents(body)) events.push(data);
  return events;
}

describe("server-sent event reader", () => {
  it("yields each event's data, skipping comments, however the bytes are split", async () => {
    const text = 'data: {"line":"one"}\n\n: keep-alive\n\ndata: {"line":"two"}\n\n';
    expect(await eventsOf([text])).toEqual(['{"line":"one"}', '{"line":"two"}']);
    expect(await eventsOf([...text])).toEqual(['{"line":"one"}', '{"line":"two"}']);
  });

  it("joins multi-line data, takes CRLF and data without a space, and drops an event cut off before its blank line", async () => {
    expect(await eventsOf(["data:a\r\ndata: b\r\n\r\nid: 3\ndata: c\n\ndata: cut"])).toEqual(["a\nb", "c"]);
  });
});
