// Baseline (a), the bench's minimal upstream: a plain Node `http` server serving only the fast routes
// (host-agent/dev/container/fast-routes.ts, the same code the dev container serves under /fast/), in
// a process of its own so it shares no event loop with the bench client. Prints its port, then serves
// until killed. `node bench/baselines/minimal-server.ts`
import { createServer } from "node:http";
import { serveFast } from "../../host-agent/dev/container/fast-routes.ts";

const server = createServer((req, res) => {
  if (serveFast(req, res)) return;
  req.resume();
  res.writeHead(404, { "content-length": 0 });
  res.end();
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`${typeof address === "object" && address ? address.port : 0}\n`);
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(0));
