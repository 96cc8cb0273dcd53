// Reads a server-sent event stream to its end, noting when each event arrived: events passed on as
// they are sent arrive spread over time and over several reads; a buffered stream arrives at once.

export interface ArrivedEvent {
  /** The event's text without its closing blank line. */
  event: string;
  /** When the read that completed it returned (Date.now()). */
  atMs: number;
}

export async function readEventArrivals(response: Response): Promise<{ text: string; reads: number; events: ArrivedEvent[] }> {
  if (!response.body) throw new Error(`no body in the ${response.status} response`);
  const decoder = new TextDecoder();
  const events: ArrivedEvent[] = [];
  let text = "";
  let pending = "";
  let reads = 0;
  for await (const chunk of response.body) {
    const atMs = Date.now();
    reads++;
    const piece = decoder.decode(chunk, { stream: true });
    text += piece;
    const complete = (pending + piece).split("\n\n");
    pending = complete.pop() ?? "";
    for (const event of complete) events.push({ event, atMs });
  }
  return { text, reads, events };
}
