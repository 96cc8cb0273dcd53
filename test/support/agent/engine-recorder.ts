// A pass-through in front of a Docker-compatible engine's unix socket that keeps the body of every
// container create: what the agent asked for, which the engine may not show back (podman accepts
// NVIDIA device requests and leaves them out of `inspect`). Everything else passes as it is,
// streams (logs, events, pulls) included, and the connections an exec takes over (hijacked, raw
// both ways: SSH sessions in containers).
import { once } from "node:events";
import { createServer, request, type Server } from "node:http";
import { connect } from "node:net";
import type { Duplex } from "node:stream";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface EngineRecorder {
  /** DOCKER_HOST for the recorded client. */
  dockerHost: string;
  /** The bodies of `POST /containers/create`, in order. */
  creates: Record<string, unknown>[];
  close(): Promise<void>;
}

export async function recordEngine(engineSocket: string): Promise<EngineRecorder> {
  const dir = await mkdtemp(join(tmpdir(), "engine-recorder-"));
  const socketPath = join(dir, "engine.sock");
  const creates: Record<string, unknown>[] = [];
  const server: Server = createServer((incoming, answer) => {
    const chunks: Buffer[] = [];
    const upstream = request({ socketPath: engineSocket, method: incoming.method, path: incoming.url, headers: incoming.headers }, (response) => {
      answer.writeHead(response.statusCode ?? 502, response.headers);
      response.pipe(answer);
    });
    upstream.on("error", () => answer.destroy());
    answer.on("close", () => upstream.destroy());
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      if (incoming.method === "POST" && /\/containers\/create(\?|$)/.test(incoming.url ?? "")) {
        creates.push(JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>);
      }
    });
    incoming.pipe(upstream);
  });
  // An exec's start upgrades its connection: from there it is raw bytes both ways.
  server.on("upgrade", (incoming, client: Duplex, head: Buffer) => {
    const engine = connect(engineSocket);
    const headers = incoming.rawHeaders.reduce((lines, value, i) => lines + (i % 2 === 0 ? `${value}: ` : `${value}\r\n`), "");
    engine.write(`${incoming.method} ${incoming.url} HTTP/1.1\r\n${headers}\r\n`);
    if (head.byteLength > 0) engine.write(head);
    client.pipe(engine).pipe(client);
    const end = () => (client.destroy(), engine.destroy());
    client.on("error", end);
    engine.on("error", end);
  });
  server.listen(socketPath);
  await once(server, "listening");
  return {
    dockerHost: `unix://${socketPath}`,
    creates,
    async close() {
      server.closeAllConnections();
      await new Promise((closed) => server.close(closed));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
