// WebSocket `/ws`: echoes every message with its type; the text `close:CODE:REASON` makes the server
// close with that code and reason, so close codes coming from upstream can be tested; `?greet=TEXT`
// makes it speak first, sending TEXT as soon as the connection opens (as ComfyUI's status does);
// `?deaf=1` makes it read nothing at all (its socket paused), as a server busy elsewhere would;
// `?flood=N` makes it send N bytes of binary messages as fast as its socket takes them.
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocket, WebSocketServer } from "ws";

export function createWsEcho(): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const server = new WebSocketServer({
    noServer: true,
    handleProtocols: (protocols) => protocols.values().next().value ?? false,
  });
  server.on("connection", (ws, req: IncomingMessage) => {
    const query = new URL(req.url ?? "/", "http://container").searchParams;
    const greeting = query.get("greet");
    if (greeting !== null) ws.send(greeting);
    if (query.get("deaf") === "1") req.socket.pause();
    const flood = Number(query.get("flood") ?? 0);
    if (flood > 0) void sendFlood(ws, flood);
    ws.on("message", (data, isBinary) => {
      const closeRequest = isBinary ? null : /^close:(\d+):(.*)$/s.exec(data.toString());
      if (!closeRequest) return ws.send(data, { binary: isBinary });
      try {
        ws.close(Number(closeRequest[1]), closeRequest[2]);
      } catch {
        ws.close(1011, "invalid close code requested");
      }
    });
  });
  return (req, socket, head) => server.handleUpgrade(req, socket, head, (ws) => server.emit("connection", ws, req));
}

/** Sends `bytes` in 256 KiB messages, each once the last has been written to the socket. */
async function sendFlood(ws: WebSocket, bytes: number): Promise<void> {
  const message = Buffer.alloc(256 * 1024, 5);
  for (let sent = 0; sent < bytes && ws.readyState === WebSocket.OPEN; sent += message.byteLength) {
    const part = message.subarray(0, Math.min(message.byteLength, bytes - sent));
    await new Promise<void>((resolve) => ws.send(part, { binary: true }, () => resolve()));
  }
}
