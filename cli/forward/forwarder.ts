// `gpu forward`'s server: listens on 127.0.0.1 and passes every request, streamed both ways, to the
// instance's port through the service's path proxy, adding the key. WebSocket upgrades go through
// upgrade.ts. Local tools then talk to http://127.0.0.1:N as if the server inside ran there.
import { createServer, request as httpRequest, Agent as HttpAgent, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { request as httpsRequest, Agent as HttpsAgent } from "node:https";
import { once } from "node:events";
import type { Socket } from "node:net";
import { pipeline } from "node:stream/promises";
import { towardsClient, towardsService } from "./headers.ts";
import { forwardUpgrade } from "./upgrade.ts";
import type { ForwardTarget, OpenUpstream } from "./upstream.ts";

export interface Forwarder {
  url: string;
  close(): Promise<void>;
}

export async function startForwarder(target: ForwardTarget, localPort: number): Promise<Forwarder> {
  const prefix = new URL(`${target.apiUrl}/v1/instances/${encodeURIComponent(target.instanceId)}/proxy/${target.port}`);
  const secure = prefix.protocol === "https:";
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const open: OpenUpstream = (path, method, headers) =>
    // Raw header lists get no Host of their own from node:http.
    (secure ? httpsRequest : httpRequest)(`${prefix.href}${path}`, { method, headers: ["host", prefix.host, ...headers], agent });

  const upgraded = new Set<Socket>();
  const server = createServer((req, res) => forwardRequest(open, target, req, res));
  server.on("upgrade", (req: IncomingMessage, socket: Socket, head: Buffer) => {
    upgraded.add(socket);
    socket.once("close", () => upgraded.delete(socket));
    forwardUpgrade(open, target, req, socket, head);
  });
  server.listen(localPort, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => closeServer(server, upgraded, agent),
  };
}

function forwardRequest(open: OpenUpstream, target: ForwardTarget, req: IncomingMessage, res: ServerResponse): void {
  if (!req.url?.startsWith("/")) return refuse(res, 400, "bad_request", `expected a path, got "${req.url}"`);
  const upstream = open(req.url, req.method ?? "GET", towardsService(req.rawHeaders, target.apiKey, null));
  upstream.on("response", (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage, towardsClient(answer.rawHeaders));
    // A client that leaves mid-stream ends the upstream exchange too.
    pipeline(answer, res).catch(() => upstream.destroy());
  });
  upstream.on("error", (error) => {
    if (!res.headersSent) refuse(res, 502, "upstream_unavailable", `gpu forward cannot reach ${target.apiUrl}: ${error.message}`);
    else res.destroy(error);
  });
  pipeline(req, upstream).catch(() => upstream.destroy());
}

function refuse(res: ServerResponse, status: number, error: string, message: string): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ error, message }));
}

async function closeServer(server: Server, upgraded: Set<Socket>, agent: HttpAgent): Promise<void> {
  const closed = once(server, "close");
  server.close();
  server.closeAllConnections();
  for (const socket of upgraded) socket.destroy();
  agent.destroy();
  await closed;
}
