// GET/PUT /v1/instances/{id}/files through the real Worker, AccountDO and MachineDO in workerd with a
// fake agent: the request reaches the agent as files_open (running or stopped), its answer comes
// back as it is, and each refusal is the API's error.
import { beforeAll, describe, expect, it } from "vitest";
import type { ServerMessage } from "../../../protocol/messages.ts";
import { DataKind } from "../../../protocol/mux/frames.ts";
import { call, callJson, newAccount, seedGpuModels } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { runningInstance } from "../../../test/support/workerd/proxy-host.ts";

type FilesOpen = Extract<ServerMessage, { type: "files_open" }>;
let agent: FakeAgent;

beforeAll(async () => {
  await seedGpuModels();
  agent = await FakeAgent.register("files-host");
  await agent.connect(Array(8).fill("h100-80gb"));
});

/** Answers the next files_open for `id` with a 200 tar of `bytes`; the message it got. */
function serveTar(id: string, bytes: Uint8Array): Promise<FilesOpen> {
  const earlier = new Set(agent.received.filter((m) => m.type === "files_open").map((m) => m.stream));
  return agent.waitFor((m): m is FilesOpen => m.type === "files_open" && m.instance_id === id && !earlier.has(m.stream)).then((message) => {
    agent.send({ type: "http_response", stream: message.stream, status: 200, headers: [["content-type", "application/x-tar"]] });
    agent.sendData(DataKind.body, message.stream, bytes);
    agent.send({ type: "end", stream: message.stream });
    return message;
  });
}

describe("/v1/instances/{id}/files", () => {
  it("GET streams the agent's tar, on a running and on a stopped instance", async () => {
    const { key } = await newAccount();
    const instance = await runningInstance(agent, key);
    const tar = new Uint8Array([1, 2, 3, 4, 5]);
    const served = serveTar(instance.id, tar);
    const response = await call("GET", `/v1/instances/${instance.id}/files?path=${encodeURIComponent("/data/my results")}`, { key });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/x-tar");
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(tar);
    expect(await served).toMatchObject({ op: "get", path: "/data/my results" });

    expect((await call("POST", `/v1/instances/${instance.id}/stop`, { key })).status).toBe(204);
    await agent.waitForCommand(instance.id, "stop");
    agent.report(instance.id, "stopped");
    const again = serveTar(instance.id, tar);
    let stopped = await call("GET", `/v1/instances/${instance.id}/files?path=/data`, { key });
    for (let i = 0; stopped.status !== 200 && i < 50; i++) stopped = await call("GET", `/v1/instances/${instance.id}/files?path=/data`, { key });
    expect(stopped.status).toBe(200);
    expect((await again).path).toBe("/data");
  });

  it("PUT carries the body to the agent as a put of the directory", async () => {
    const { key } = await newAccount();
    const instance = await runningInstance(agent, key);
    const opened = agent.waitFor((m): m is FilesOpen => m.type === "files_open" && m.instance_id === instance.id && m.op === "put");
    const answering = opened.then(async (message) => {
      await agent.waitFor((m) => m.type === "end" && "stream" in m && m.stream === message.stream);
      agent.send({ type: "http_response", stream: message.stream, status: 204, headers: [] });
      return message;
    });
    const response = await call("PUT", `/v1/instances/${instance.id}/files?path=/data`, { key, rawBody: new Uint8Array(3000), headers: { "content-type": "application/x-tar" } });
    expect(response.status).toBe(204);
    const message = await answering;
    expect(message.path).toBe("/data");
    expect(agent.bodies.get(message.stream)).toBe(3000);
  });

  it("refuses a relative path (400), no key (401), another account's instance (404), a destroyed one (409)", async () => {
    const owner = await newAccount();
    const instance = await runningInstance(agent, owner.key);
    const relative = await callJson("GET", `/v1/instances/${instance.id}/files?path=data`, { key: owner.key });
    expect(relative).toMatchObject({ status: 400, body: { error: "invalid", message: expect.stringMatching(/^path: must be an absolute path/) } });
    expect((await callJson("GET", `/v1/instances/${instance.id}/files`, { key: owner.key })).status).toBe(400);
    expect((await call("GET", `/v1/instances/${instance.id}/files?path=/data`)).status).toBe(401);
    const stranger = await newAccount();
    expect(await callJson("GET", `/v1/instances/${instance.id}/files?path=/data`, { key: stranger.key })).toMatchObject({ status: 404, body: { error: "not_found" } });
    expect((await call("DELETE", `/v1/instances/${instance.id}`, { key: owner.key })).status).toBe(204);
    const destroyed = await callJson("GET", `/v1/instances/${instance.id}/files?path=/data`, { key: owner.key });
    expect(destroyed).toMatchObject({ status: 409, body: { error: "conflict", message: expect.stringContaining("destroyed") } });
    expect(agent.received.filter((m) => m.type === "files_open" && m.instance_id === instance.id)).toEqual([]);
  });
});
