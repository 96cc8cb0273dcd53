// The dev container's HTTP server: the stand-in model server's routes (/health, /echo/..., /sse,
// /bytes, the /ws echo and the OpenAI-compatible /v1 routes), which tests assert on exactly, a web
// app at / (web-app.ts), the readiness paths of every template's port (/health, Jupyter's
// /api, / for ComfyUI and Ollama), and the bench's fast routes under /fast/ (fast-routes.ts).
// Each request but a fast one is logged as one line: on stdout, or on stderr when it failed (4xx, 5xx).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { sendBytesDigest, streamBytes } from "./bytes-route.ts";
import { echoRequest } from "./echo-route.ts";
import { serveFast } from "./fast-routes.ts";
import { sendJson } from "./json-io.ts";
import { completeRequest } from "./openai-completions.ts";
import { embedRequest } from "./openai-embeddings.ts";
import { streamEvents } from "./sse-route.ts";
import { serveWebApp } from "./web-app.ts";
import { createWsEcho } from "./ws-echo.ts";

export function createDevServer(servedModel: string): Server {
  const startedAt = Math.floor(Date.now() / 1000);
  const server = createServer((req, res) => {
    if (serveFast(req, res)) return;
    res.on("finish", () => logRequest(req, res.statusCode));
    routeRequest(req, res, servedModel, startedAt).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(error) } });
      else res.destroy();
    });
  });
  const upgradeWs = createWsEcho();
  server.on("upgrade", (req: IncomingMessage, socket, head: Buffer) => {
    if (pathOf(req) === "/ws") return upgradeWs(req, socket, head);
    socket.end("HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
  });
  return server;
}

async function routeRequest(req: IncomingMessage, res: ServerResponse, servedModel: string, startedAt: number): Promise<void> {
  const path = pathOf(req);
  const query = new URLSearchParams((req.url ?? "").split("?")[1] ?? "");
  const route = `${req.method} ${path}`;
  if (path.startsWith("/echo/")) return echoRequest(req, res);
  if (serveWebApp(req, res, path)) return;
  switch (route) {
    case "GET /health":
      res.writeHead(200, { "content-type": "text/plain" });
      return void res.end("ok");
    case "GET /api":
      return sendJson(res, 200, { version: "dev" });
    case "GET /sse":
      return streamEvents(res, queryInt(query, "n", 10), queryInt(query, "interval_ms", 100));
    case "GET /bytes":
      return streamBytes(res, queryInt(query, "n", 0), query.get("chunked") === "1");
    case "GET /bytes/sha256":
      return sendBytesDigest(res, queryInt(query, "n", 0));
    case "GET /v1/models":
      return sendJson(res, 200, { object: "list", data: [{ id: servedModel, object: "model", created: startedAt, owned_by: "dev" }] });
    case "POST /v1/chat/completions":
      return completeRequest(req, res, "chat", servedModel);
    case "POST /v1/completions":
      return completeRequest(req, res, "text", servedModel);
    case "POST /v1/embeddings":
      return embedRequest(req, res, servedModel);
  }
  req.resume();
  sendJson(res, 404, { error: { message: `no route for ${route}` } });
}

function logRequest(req: IncomingMessage, status: number): void {
  (status >= 400 ? process.stderr : process.stdout).write(`${req.method} ${pathOf(req)} ${status}\n`);
}

function pathOf(req: IncomingMessage): string {
  const url = req.url ?? "/";
  const queryAt = url.indexOf("?");
  return queryAt === -1 ? url : url.slice(0, queryAt);
}

function queryInt(query: URLSearchParams, name: string, fallback: number): number {
  const text = query.get(name);
  return text !== null && /^\d+$/.test(text) ? Number(text) : fallback;
}
