// Splits a server-sent event stream, as its text arrives in pieces, into the `data:` payloads of its
// complete events; what is left is kept for the next piece. Comments (": keep-alive") carry no data.
export function takeEvents(buffered: string): { data: string[]; rest: string } {
  const blocks = buffered.replace(/\r\n/g, "\n").split("\n\n");
  const rest = blocks.pop() ?? "";
  const data = blocks.flatMap((block) => block.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trimStart()));
  return { data, rest };
}
