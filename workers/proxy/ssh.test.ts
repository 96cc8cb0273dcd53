// GET /v1/instances/{id}/ssh through the real Worker, MachineDO and AccountDO in workerd, with a fake
// agent: the instance object shows its host's SSH key; the upgrade is admitted like the proxy's (an
// account key or the instance's token) and opens an ssh_open stream carrying the account's keys as
// they are at that moment; every refusal is the API's error.
import { beforeAll, describe, expect, it } from "vitest";
import type { ServerMessage } from "../../protocol/messages.ts";
import { call, callJson, newAccount, seedGpuModels } from "../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { runningInstance } from "../../test/support/workerd/proxy-host.ts";

const HOST_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIItlxsmjqcNTqg2EN9xHSoTBtP776H0EEDMMJU3iMj+r";
const HOST_KEY_FINGERPRINT = "SHA256:Gdm3GLZqJi56Xbai39/qyQsCLrQl3OopQ+Vk6ZfzWCQ";
const USER_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIItlxsmjqcNTqg2EN9xHSoTBtP776H0EEDMMJU3iMj+r me@laptop";

type SshOpen = Extract<ServerMessage, { type: "ssh_open" }>;
let agent: FakeAgent;

beforeAll(async () => {
  await seedGpuModels();
  agent = await FakeAgent.register("ssh-host");
  await agent.connect(Array(8).fill("h100-80gb"), [], [], { ssh_host_key: HOST_KEY });
});

const upgrade = (id: string, credential: string | null) => call("GET", `/v1/instances/${id}/ssh`, { key: credential, headers: { upgrade: "websocket" } });

/** Opens an SSH stream and answers it as the agent does; the ssh_open the agent got. */
async function openSsh(id: string, credential: string): Promise<{ status: number; opened: SshOpen }> {
  const earlier = new Set(agent.received.filter((m) => m.type === "ssh_open").map((m) => m.stream));
  const opened = agent.waitFor((m): m is SshOpen => m.type === "ssh_open" && m.instance_id === id && !earlier.has(m.stream));
  const response = upgrade(id, credential);
  const message = await opened;
  agent.send({ type: "ws_accepted", stream: message.stream, protocol: "" });
  const answer = await response;
  answer.webSocket?.accept();
  answer.webSocket?.close(1000, "done");
  return { status: answer.status, opened: message };
}

describe("SSH over the bridge", () => {
  it("the instance shows its host's key and OpenSSH's fingerprint of it, user root", async () => {
    const { key } = await newAccount();
    const instance = await runningInstance(agent, key);
    const read = await callJson<{ ssh: unknown }>("GET", `/v1/instances/${instance.id}`, { key });
    expect(read.body.ssh).toEqual({ host_key: HOST_KEY, host_key_fingerprint: HOST_KEY_FINGERPRINT, user: "root" });
  });

  it("a key or the instance's token opens ssh_open with the account's keys as they are now", async () => {
    const { key } = await newAccount();
    const instance = await runningInstance(agent, key);
    const empty = await openSsh(instance.id, key);
    expect(empty.status).toBe(101);
    expect(empty.opened.keys).toEqual([]);
    const added = await callJson<{ id: string }>("POST", "/v1/ssh-keys", { key, body: { public_key: USER_KEY } });
    const withKey = await openSsh(instance.id, instance.token);
    expect(withKey.status).toBe(101);
    expect(withKey.opened.keys).toEqual([{ id: added.body.id, type: "ssh-ed25519", blob: USER_KEY.split(" ")[1] }]);
    expect((await call("DELETE", `/v1/ssh-keys/${added.body.id}`, { key })).status).toBe(204);
    expect((await openSsh(instance.id, key)).opened.keys).toEqual([]);
  });

  it("refuses a plain GET (400), no or a wrong credential (401), another account (404), a stopped instance (409)", async () => {
    const owner = await newAccount();
    const instance = await runningInstance(agent, owner.key);
    const plain = await callJson("GET", `/v1/instances/${instance.id}/ssh`, { key: owner.key });
    expect(plain).toMatchObject({ status: 400, body: { error: "bad_request", message: expect.stringContaining("WebSocket upgrade") } });
    expect((await upgrade(instance.id, null)).status).toBe(401);
    expect((await upgrade(instance.id, "gpr_not-a-real-key")).status).toBe(401);
    const stranger = await newAccount();
    const other = await upgrade(instance.id, stranger.key);
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ error: "not_found" });
    // Another instance's token opens nothing here.
    const second = await runningInstance(agent, owner.key);
    expect((await upgrade(instance.id, second.token)).status).toBe(401);
    expect((await call("POST", `/v1/instances/${instance.id}/stop`, { key: owner.key })).status).toBe(204);
    const stopped = await upgrade(instance.id, owner.key);
    expect(stopped.status).toBe(409);
    expect(await stopped.json()).toMatchObject({ error: "not_running" });
    expect(agent.received.filter((m) => m.type === "ssh_open" && m.instance_id === instance.id)).toEqual([]);
  });
});
