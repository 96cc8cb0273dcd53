// GET /v1/instances/{id}/terminal through the real Worker, AccountDO and MachineDO in workerd, with a
// fake agent: a signed-in browser on this service's own page opens a terminal_open stream of the size
// it asked; another site's page, a missing Origin, an API key, another account, a stopped instance
// and a bad size are refused before anything reaches the host.
import { beforeAll, describe, expect, it } from "vitest";
import type { ServerMessage } from "../../protocol/messages.ts";
import { admin, BASE, call, seedGpuModels } from "../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { runningInstance, type RunningInstance } from "../../test/support/workerd/proxy-host.ts";
import { asBrowser, browser, signUp } from "../../test/support/workerd/session-client.ts";

type TerminalOpen = Extract<ServerMessage, { type: "terminal_open" }>;
let agent: FakeAgent;

beforeAll(async () => {
  await seedGpuModels();
  agent = await FakeAgent.online("terminal-host", Array(8).fill("h100-80gb"));
});

/** A signed-up browser with a running instance (launched with a key the browser made). */
async function browserWithInstance(): Promise<{ session: string; key: string; instance: RunningInstance }> {
  const account = await signUp();
  await admin("POST", `/accounts/${account.id}/credits`, { amount_micros: 100_000_000 });
  const key = (await asBrowser("POST", "/v1/keys", account.session, { body: { name: "launcher" } })).body.key as string;
  return { session: account.session, key, instance: await runningInstance(agent, key) };
}

const upgrade = (id: string, headers: Record<string, string>, query = "") =>
  call("GET", `/v1/instances/${id}/terminal${query}`, { headers: { upgrade: "websocket", ...headers } });
const opened = (id: string) => agent.received.filter((m): m is TerminalOpen => m.type === "terminal_open" && m.instance_id === id);

describe("the dashboard's terminal", () => {
  it("a signed-in browser on this service's page opens a shell of the size it asked, carried like a WebSocket", async () => {
    const { session, instance } = await browserWithInstance();
    const opening = agent.waitFor((m): m is TerminalOpen => m.type === "terminal_open" && m.instance_id === instance.id);
    const response = upgrade(instance.id, browser(session), "?cols=132&rows=43");
    const message = await opening;
    expect(message).toEqual({ type: "terminal_open", stream: message.stream, instance_id: instance.id, cols: 132, rows: 43 });
    agent.send({ type: "ws_accepted", stream: message.stream, protocol: "" });
    const answer = await response;
    expect(answer.status).toBe(101);
    answer.webSocket!.accept();
    answer.webSocket!.close(1000, "done");
  });

  it("another site's page, or no Origin at all, is 403 forbidden: a cookie alone never opens a shell", async () => {
    const { session, instance } = await browserWithInstance();
    for (const origin of ["https://evil.example", "http://gpu.test.evil.example", null]) {
      const refused = await upgrade(instance.id, browser(session, origin));
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ error: "forbidden", message: expect.stringContaining("this service's own pages") });
    }
    expect(opened(instance.id)).toEqual([]);
  });

  it("an API key or an instance token is 401 (a shell from a script is `gpu ssh`); another account's session is 404", async () => {
    const { key, instance } = await browserWithInstance();
    for (const credential of [key, instance.token]) {
      const refused = await upgrade(instance.id, { authorization: `Bearer ${credential}`, origin: BASE });
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ error: "unauthorized", message: expect.stringContaining("gpu ssh") });
    }
    const stranger = await signUp();
    const other = await upgrade(instance.id, browser(stranger.session));
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ error: "not_found" });
    expect(opened(instance.id)).toEqual([]);
  });

  it("a stopped instance is 409 not_running; a bad size is 400 naming it; a plain GET is 400", async () => {
    const { session, key, instance } = await browserWithInstance();
    for (const [query, message] of [["?cols=0", "cols: must be an integer from 1 to 1000"], ["?rows=1001", "rows: must be an integer from 1 to 1000"], ["?cols=abc", "cols: must be an integer from 1 to 1000"]]) {
      const refused = await upgrade(instance.id, browser(session), query);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({ error: "invalid", message });
    }
    const plain = await call("GET", `/v1/instances/${instance.id}/terminal`, { headers: browser(session) });
    expect(plain.status).toBe(400);
    expect((await call("POST", `/v1/instances/${instance.id}/stop`, { key })).status).toBe(204);
    const stopped = await upgrade(instance.id, browser(session));
    expect(stopped.status).toBe(409);
    expect(await stopped.json()).toMatchObject({ error: "not_running" });
    expect(opened(instance.id)).toEqual([]);
  });
});
