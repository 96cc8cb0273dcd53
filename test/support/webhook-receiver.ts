// A real HTTP receiver on the loopback host for the workerd tests' webhook deliveries (a Worker
// cannot listen), started once by vitest (globalSetup of the workers project) and named to the tests
// by webhookReceiverUrl() (workerd/webhook-receiver-url.ts). It answers POST /status/NNN with that
// status and a short body, and holds POST /hang without an answer until its client leaves.
import { createServer, type Server } from "node:http";
import type { TestProject } from "vitest/node";
import type {} from "./workerd/webhook-receiver-url.ts";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = createServer((req, res) => {
    req.resume();
    if (req.url === "/hang") return;
    const status = Number(/^\/status\/([1-5]\d\d)$/.exec(req.url ?? "")?.[1] ?? 404);
    res.writeHead(status, { "content-type": "text/plain" }).end(`the receiver answered ${status}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  project.provide("webhookReceiver", `http://127.0.0.1:${(server.address() as { port: number }).port}`);
  return () => close(server);
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
