// WebSocket `/ws`: echoes every message with its type; the text `close:CODE:REASON` makes the server
// close with that code and reason, so close codes coming from upstream can be tested; `?greet=TEXT`
// makes it speak first, sending TEXT as soon as the connection opens (as ComfyUI's status does).
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";

export function createWsEcho(): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const server = new WebSocketServer({
    noServer: true,
    handleProtocols: (protocols) => protocols.values().next().value ?? false,
  });
  server.on("connection", (ws, req: IncomingMessage) => {
    const greeting = new URL(req.url ?? "/", "http://container").searchParams.get("greet");
    if (greeting !== null) ws.send(greeting);
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
