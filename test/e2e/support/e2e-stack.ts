// The real local stack for end-to-end tests: wrangler dev, real agents, fresh state, free port. API
// calls go through the typed client (client/), as the CLI's and the dashboard's do.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGpuClient, GpuApiError, ok, type GpuClient, type Instance, type LaunchRequest } from "../../../client/index.ts";
import { afterAll, beforeAll } from "vitest";
import { freeLatePort } from "../../../host-agent/dev/free-port.ts";
import { startStack, type Stack } from "../../../scripts/dev/stack.ts";

export type { Instance };

export interface E2eStack extends Stack {
  /**
   * Stops the stack and removes its state folder; `keepState` keeps the folder, for a stack started
   * again on it (`resume`), whose own stop removes it.
   */
  stop(options?: { keepState?: boolean }): Promise<void>;
  key: string;
  /** The typed client with the dev account's key. */
  client: GpuClient;
  /**
   * Any call by method and concrete path, answering the status and the JSON body (for an error,
   * `{error, message}`) instead of throwing: for tests about statuses and other keys.
   */
  api<T = Record<string, unknown>>(method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; body: T }>;
  /** Launches an instance and waits until it runs and its first port answers its readiness path. */
  launchRunning(body: LaunchRequest): Promise<Instance>;
  proxyUrl(instance: Instance, port: number, path: string): string;
}

/**
 * `vars` for the Worker, `agentEnv` for the agents (DEV_READY_DELAY_MS 300 and DEV_PULL_MS 100 unless
 * given), and `options`: `logLevel` for wrangler ("log" to see the Worker's info lines in `worker.output()`);
 * `resume`, the state folder and port of a stack that was stopped, to start it again on them.
 */
export async function startE2eStack(
  vars: Record<string, string> = {}, agentEnv: Record<string, string> = {},
  { logLevel = "warn", resume }: { logLevel?: "warn" | "log"; resume?: { stateDir: string; baseUrl: string } } = {},
): Promise<E2eStack> {
  const stateDir = resume?.stateDir ?? mkdtempSync(join(tmpdir(), "gpu-rental-e2e-"));
  const stack = await startStack({
    port: resume ? Number(new URL(resume.baseUrl).port) : await freePort(),
    stateDir,
    adminToken: "e2e-admin-token",
    fresh: resume === undefined,
    vars: { RATE_LIMIT_RPS: "100000", APPS_RATE_LIMIT_RPS: "100000", ADMIN_RATE_LIMIT_RPS: "100000", ...vars },
    agentEnv: { DEV_READY_DELAY_MS: "300", DEV_PULL_MS: "100", ...agentEnv },
    logLevel,
  }).catch((error: unknown) => {
    // startStack stopped what it had started; the state folder is this function's to remove.
    rmSync(stateDir, { recursive: true, force: true });
    throw error;
  });
  const key = stack.setup.account.key;
  const client = createGpuClient({ baseUrl: stack.baseUrl, apiKey: key });
  const api: E2eStack["api"] = async (method, path, body, useKey = key) => {
    const caller = useKey === key ? client : createGpuClient({ baseUrl: stack.baseUrl, apiKey: useKey });
    // Concrete paths ("/v1/instances/i-…") are not the document's templated ones: typed loosely here.
    const request = caller.request as (method: string, path: string, init: { body?: unknown }) => Promise<{ data?: unknown; response: Response }>;
    try {
      const { data, response } = await request(method.toLowerCase(), path, body === undefined ? {} : { body });
      return { status: response.status, body: (data ?? null) as never };
    } catch (error) {
      if (!(error instanceof GpuApiError)) throw error;
      return { status: error.status, body: { error: error.error, message: error.message } as never };
    }
  };
  const proxyUrl = (instance: Instance, port: number, path: string) =>
    `${stack.baseUrl}/v1/instances/${instance.id}/proxy/${port}${path}`;
  return {
    ...stack,
    async stop({ keepState = false } = {}) {
      await stack.stop();
      if (!keepState) rmSync(stack.stateDir, { recursive: true, force: true });
    },
    key,
    client,
    api,
    proxyUrl,
    async launchRunning(body) {
      const created = await ok(client.POST("/v1/instances", { body }));
      const params = { params: { path: { id: created.id } } };
      const running = await poll(() => ok(client.GET("/v1/instances/{id}", params)), (instance) => instance.status === "running");
      const port = running.ports[0];
      if (port) {
        await poll(
          () => fetch(proxyUrl(running, port.port, "/health"), { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status),
          (status) => status === 200,
        );
      }
      return running;
    },
  };
}

/**
 * The stack of one test file: started before its tests (startE2eStack's arguments), stopped after
 * them, after the file's own afterAll hooks. The object is filled in once the stack is up, so read
 * it inside hooks and tests only.
 */
export function useE2eStack(...args: Parameters<typeof startE2eStack>): E2eStack {
  const stack = {} as E2eStack;
  let starting: Promise<E2eStack> | undefined;
  beforeAll(async () => {
    starting = startE2eStack(...args);
    Object.assign(stack, await starting);
  }, 120_000);
  afterAll(async () => {
    // A start that outlived the hook's timeout is still waited for, so that its processes and folder go too.
    await (await starting?.catch(() => undefined))?.stop();
  }, 120_000);
  return stack;
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

/**
 * A free port for a listener that binds it only later (wrangler dev seconds on, an SSH forward, a dev
 * server): one from the kernel's ephemeral range can meanwhile become the local end of any outbound
 * connection, and the listener then fails with "Address already in use".
 */
export function freePort(): Promise<number> {
  return freeLatePort(new Set());
}
