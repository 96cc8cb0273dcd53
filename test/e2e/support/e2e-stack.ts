// The real local stack for end-to-end tests: wrangler dev, real agents, fresh state, free port.
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startStack, type Stack } from "../../../scripts/dev/stack.ts";

export interface E2eStack extends Stack {
  key: string;
  api<T = Record<string, unknown>>(method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; body: T }>;
  /** Launches an instance and waits until it runs and its first port answers its readiness path. */
  launchRunning(body: Record<string, unknown>): Promise<Instance>;
  proxyUrl(instance: Instance, port: number, path: string): string;
}

export interface Instance {
  id: string;
  status: string;
  token: string;
  ports: { port: number; path: string }[];
  [field: string]: unknown;
}

export async function startE2eStack(vars: Record<string, string> = {}): Promise<E2eStack> {
  const stack = await startStack({
    port: await freePort(),
    stateDir: mkdtempSync(join(tmpdir(), "gpu-rental-e2e-")),
    adminToken: "e2e-admin-token",
    fresh: true,
    vars: { RATE_LIMIT_RPS: "100000", HEARTBEAT_TIMEOUT_MS: "3000", ...vars },
    agentEnv: { DEV_READY_DELAY_MS: "300", DEV_PULL_MS: "100" },
  });
  const key = stack.setup.account.key;
  const api: E2eStack["api"] = async (method, path, body, useKey = key) => {
    const response = await fetch(`${stack.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${useKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : null) as never };
  };
  const proxyUrl = (instance: Instance, port: number, path: string) =>
    `${stack.baseUrl}/v1/instances/${instance.id}/proxy/${port}${path}`;
  return {
    ...stack,
    key,
    api,
    proxyUrl,
    async launchRunning(body) {
      const created = await api<Instance>("POST", "/v1/instances", body);
      if (created.status !== 201) throw new Error(`launch failed: ${JSON.stringify(created.body)}`);
      const running = await poll(() => api<Instance>("GET", `/v1/instances/${created.body.id}`), (r) => r.body.status === "running");
      const port = running.body.ports[0];
      if (port) {
        await poll(
          () => fetch(proxyUrl(running.body, port.port, "/health"), { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status),
          (status) => status === 200,
        );
      }
      return running.body;
    },
  };
}

export async function poll<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await probe();
    if (accept(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`condition not met in ${timeoutMs} ms; last: ${JSON.stringify(last)}`);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}
