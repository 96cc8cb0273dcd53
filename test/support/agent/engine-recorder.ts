// A pass-through in front of a Docker-compatible engine's unix socket that keeps the body of every
// container create: what the agent asked for, which the engine may not show back (podman accepts
// NVIDIA device requests and leaves them out of `inspect`). Everything else passes as it is,
// streams (logs, events, pulls) included.
import { once } from "node:events";
import { createServer, request, type Server } from "node:http";
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
