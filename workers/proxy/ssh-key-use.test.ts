// An SSH key's last_used_at, through the real Worker, MachineDO and AccountDO in workerd, with a fake
// agent saying which key authenticated each connection (`ssh_key_used`, as the agent's SSH server
// does): the MachineDO reports it to the key's account at most once a minute per key, and believes
// the agent only for a key that connection's own ssh_open offered, once per connection.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ServerMessage } from "../../protocol/messages.ts";
import { call, callJson, newAccount, seedGpuModels } from "../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { until } from "../../test/support/workerd/poll.ts";
import { runningInstance } from "../../test/support/workerd/proxy-host.ts";
import { advanceClock, resumeClock } from "../../test/support/workerd/test-clock.ts";

const HOST_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIItlxsmjqcNTqg2EN9xHSoTBtP776H0EEDMMJU3iMj+r";
const LAPTOP_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIItlxsmjqcNTqg2EN9xHSoTBtP776H0EEDMMJU3iMj+r me@laptop";
const DESKTOP_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDWzpqOJrLUFnHNdhEJIzNcg7ZKEQ3Gie8q9BsY0/gsQ me@desktop";
const TABLET_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDRUinn11DoyBMbmuqgP6h7jLzKJMt91QjGwusG0zcO9 me@tablet";
const MINUTE_MS = 60_000;

type SshOpen = Extract<ServerMessage, { type: "ssh_open" }>;
interface SshKey {
  id: string;
  last_used_at: string | null;
}
let agent: FakeAgent;

beforeAll(async () => {
  await seedGpuModels();
  agent = await FakeAgent.register("ssh-key-use-host");
  await agent.connect(Array(4).fill("h100-80gb"), [], [], { ssh_host_key: HOST_KEY });
});

afterAll(() => resumeClock());

/** The client ends of the connections a test opened: closed after it, once its reports have been seen. */
const open: WebSocket[] = [];
afterEach(() => {
  for (const socket of open.splice(0)) socket.close(1000, "done");
});

/**
 * Opens an SSH connection as a client would and answers it as the agent does, naming `keyIds` as the
 * ones that authenticated it (each in its own `ssh_key_used`). It stays open until the test ends, as
 * a session does while its key's use is reported.
 */
async function connectWith(instanceId: string, credential: string, ...keyIds: string[]): Promise<SshOpen> {
  const earlier = new Set(agent.received.filter((m) => m.type === "ssh_open").map((m) => m.stream));
  const opened = agent.waitFor((m): m is SshOpen => m.type === "ssh_open" && m.instance_id === instanceId && !earlier.has(m.stream));
  const response = call("GET", `/v1/instances/${instanceId}/ssh`, { key: credential, headers: { upgrade: "websocket" } });
  const message = await opened;
  agent.send({ type: "ws_accepted", stream: message.stream, protocol: "" });
  for (const keyId of keyIds) agent.send({ type: "ssh_key_used", stream: message.stream, key_id: keyId });
  const answer = await response;
  expect(answer.status).toBe(101);
  answer.webSocket!.accept();
  open.push(answer.webSocket!);
  return message;
}

async function addKey(key: string, line: string): Promise<string> {
  const added = await callJson<{ id: string }>("POST", "/v1/ssh-keys", { key, body: { public_key: line } });
  expect(added.status).toBe(201);
  return added.body.id;
}

const lastUsed = async (key: string) =>
  Object.fromEntries((await callJson<{ items: SshKey[] }>("GET", "/v1/ssh-keys", { key })).body.items.map((k) => [k.id, k.last_used_at]));

describe("an SSH key's last use", () => {
  it("moves when a connection authenticates with it, at most once a minute per key", async () => {
    const { key } = await newAccount();
    const instance = await runningInstance(agent, key, "h100-80gb");
    const laptop = await addKey(key, LAPTOP_KEY);
    const desktop = await addKey(key, DESKTOP_KEY);
    expect(await lastUsed(key)).toEqual({ [laptop]: null, [desktop]: null });

    const before = Date.now();
    await connectWith(instance.id, key, laptop);
    const first = (await until(() => lastUsed(key), (used) => used[laptop] !== null, "the laptop key's last use"))[laptop]!;
    expect(Date.parse(first)).toBeGreaterThanOrEqual(before - 1000);

    // Within the minute: not reported again. The desktop key's report, queued after it, proves that
    // anything the laptop's second connection caused has reached the account.
    advanceClock(5_000);
    await connectWith(instance.id, instance.token, laptop);
    await connectWith(instance.id, key, desktop);
    const settled = await until(() => lastUsed(key), (used) => used[desktop] !== null, "the desktop key's last use");
    expect(settled[laptop]).toBe(first);

    advanceClock(MINUTE_MS);
    await connectWith(instance.id, key, laptop);
    const later = (await until(() => lastUsed(key), (used) => used[laptop] !== first, "the laptop key's next use"))[laptop]!;
    expect(Date.parse(later) - Date.parse(first)).toBeGreaterThanOrEqual(MINUTE_MS);
  });

  it("a key its connection did not offer (added since, another account's), or a second key named on one connection, moves nothing", async () => {
    const owner = await newAccount();
    const stranger = await newAccount();
    const instance = await runningInstance(agent, owner.key, "h100-80gb");
    const theirs = await addKey(stranger.key, LAPTOP_KEY);
    const laptop = await addKey(owner.key, LAPTOP_KEY);

    // Opened while the account had only the laptop key: the desktop key, added after, and the
    // stranger's key are not this connection's to name.
    const earlyOpened = connectWith(instance.id, owner.key, theirs);
    expect((await earlyOpened).keys.map((k) => k.id)).toEqual([laptop]);
    const desktop = await addKey(owner.key, DESKTOP_KEY);
    const tablet = await addKey(owner.key, TABLET_KEY);
    await connectWith(instance.id, owner.key, laptop, desktop);
    // The tablet key's report comes after any the connections above caused: once it is applied, they are.
    await connectWith(instance.id, owner.key, tablet);
    const used = await until(() => lastUsed(owner.key), (u) => u[tablet] !== null, "the tablet key's last use");
    expect(used[laptop]).not.toBeNull();
    expect(used[desktop]).toBeNull();
    expect(await lastUsed(stranger.key)).toEqual({ [theirs]: null });
  });
});
