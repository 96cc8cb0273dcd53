// Helpers of the proxy admission tests: an instance running on a fake agent that answers proxied
// requests, and a counter of the AccountDO's proxy admissions (its slow path) only a test installs.
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { call, callJson } from "./api-client.ts";
import type { FakeAgent } from "./fake-agent.ts";
import { until } from "./poll.ts";

export interface RunningInstance {
  id: string;
  token: string;
  machine_id: number;
}

/** Launches a pytorch instance with `key` on `agent`'s machine and reports it running. */
export async function runningInstance(agent: FakeAgent, key: string, gpuModel = "h100-80gb"): Promise<RunningInstance> {
  const launched = await callJson<RunningInstance & { error?: string }>("POST", "/v1/instances", { key, body: { gpu_model: gpuModel, gpu_count: 1, template: "pytorch" } });
  if (launched.status !== 201) throw new Error(`launch failed: ${JSON.stringify(launched.body)}`);
  await agent.waitForCommand(launched.body.id, "create");
  agent.report(launched.body.id, "running");
  await until(() => callJson<{ status: string }>("GET", `/v1/instances/${launched.body.id}`, { key }), (r) => r.body.status === "running", "running");
  return launched.body;
}

/** A proxied GET of the instance's port 8888. */
export const proxyGet = (id: string, credential: string | null, headers: Record<string, string> = {}) =>
  call("GET", `/v1/instances/${id}/proxy/8888/health`, { key: credential, headers });

export interface AccountCallCounter {
  /** Calls of AccountDO.openProxy (the proxy's slow path), in every account, since installed. */
  openProxyCalls(): number;
  stop(): Promise<void>;
}

/** Wraps AccountDO's openProxy on its prototype (the objects run in the test's isolate); stop() puts it back. */
export async function countOpenProxyCalls(): Promise<AccountCallCounter> {
  let calls = 0;
  let restore = () => {};
  await runInDurableObject(env.ACCOUNTS.getByName("open-proxy-counter"), (instance) => {
    const prototype = Object.getPrototypeOf(instance) as { openProxy: (...args: unknown[]) => unknown };
    const openProxy = prototype.openProxy;
    prototype.openProxy = function (this: unknown, ...args: unknown[]) {
      calls++;
      return openProxy.apply(this, args);
    };
    restore = () => {
      prototype.openProxy = openProxy;
    };
  });
  return { openProxyCalls: () => calls, stop: async () => restore() };
}
