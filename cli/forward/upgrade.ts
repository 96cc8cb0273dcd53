// WebSocket (any HTTP/1.1 Upgrade) through the forwarder: the upgrade request goes to the service's
// proxy with the key; a 101 joins the two sockets byte for byte, so frames, subprotocols and close
// codes pass unchanged; a refusal (401, 409, 502 ...) is relayed as a plain response.
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import type { ForwardTarget, OpenUpstream } from "./upstream.ts";
import { towardsClient, towardsService, withoutHeader, type RawHeaders } from "./headers.ts";

export function forwardUpgrade(open: OpenUpstream, target: ForwardTarget, req: IncomingMessage, socket: Socket, head: Buffer): void {
  const upgrade = req.headers.upgrade ?? "websocket";
  const upstream = open(req.url ?? "/", req.method ?? "GET", towardsService(req.rawHeaders, target.apiKey, upgrade));
  socket.on("error", () => upstream.destroy());
  upstream.on("upgrade", (answer, upstreamSocket: Socket, upstreamHead: Buffer) => {
    socket.write(statusLine(answer) + headerLines([...towardsClient(answer.rawHeaders), "connection", "Upgrade", "upgrade", answer.headers.upgrade ?? upgrade]));
    if (upstreamHead.length > 0) socket.write(upstreamHead);
    if (head.length > 0) upstreamSocket.write(head);
    upstreamSocket.on("error", () => socket.destroy());
    socket.on("error", () => upstreamSocket.destroy());
    upstreamSocket.pipe(socket).pipe(upstreamSocket);
  });
  upstream.on("response", async (answer) => {
    const chunks: Buffer[] = [];
    for await (const chunk of answer) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const headers = withoutHeader(towardsClient(answer.rawHeaders), "content-length");
    socket.write(statusLine(answer) + headerLines([...headers, "content-length", String(body.length), "connection", "close"]));
    socket.end(body);
  });
  upstream.on("error", (error) => {
    const body = JSON.stringify({ error: "upstream_unavailable", message: `gpu forward cannot reach ${target.apiUrl}: ${error.message}` });
    socket.end(`HTTP/1.1 502 Bad Gateway\r\n${headerLines(["content-type", "application/json", "content-length", String(Buffer.byteLength(body)), "connection", "close"])}${body}`);
  });
  upstream.end();
}

const statusLine = (answer: IncomingMessage) => `HTTP/1.1 ${answer.statusCode} ${answer.statusMessage ?? ""}\r\n`;

function headerLines(raw: RawHeaders): string {
  let text = "";
  for (let i = 0; i + 1 < raw.length; i += 2) text += `${raw[i]}: ${raw[i + 1]}\r\n`;
  return `${text}\r\n`;
}
