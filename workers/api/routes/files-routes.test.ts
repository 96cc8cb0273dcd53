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

  it("refuses a relative path (400), no key (401), another account's instance (404, an upload's part too), a destroyed one (409)", async () => {
    const owner = await newAccount();
    const instance = await runningInstance(agent, owner.key);
    const relative = await callJson("GET", `/v1/instances/${instance.id}/files?path=data`, { key: owner.key });
    expect(relative).toMatchObject({ status: 400, body: { error: "invalid", message: expect.stringMatching(/^path: must be an absolute path/) } });
    expect((await callJson("GET", `/v1/instances/${instance.id}/files`, { key: owner.key })).status).toBe(400);
    expect((await call("GET", `/v1/instances/${instance.id}/files?path=/data`)).status).toBe(401);
    const stranger = await newAccount();
    expect(await callJson("GET", `/v1/instances/${instance.id}/files?path=/data`, { key: stranger.key })).toMatchObject({ status: 404, body: { error: "not_found" } });
    const strangersPart = await callJson("PUT", `/v1/instances/${instance.id}/files?path=/data/x.bin&upload=strangers-upload-01&offset=0`, { key: stranger.key, rawBody: new Uint8Array(5) });
    expect(strangersPart).toMatchObject({ status: 404, body: { error: "not_found" } });
    expect((await call("DELETE", `/v1/instances/${instance.id}`, { key: owner.key })).status).toBe(204);
    const destroyed = await callJson("GET", `/v1/instances/${instance.id}/files?path=/data`, { key: owner.key });
    expect(destroyed).toMatchObject({ status: 409, body: { error: "conflict", message: expect.stringContaining("destroyed") } });
    expect(agent.received.filter((m) => m.type === "files_open" && m.instance_id === instance.id)).toEqual([]);
  });

  it("PUT with upload carries the part to the agent with the instance's disk as its room; the agent's 202 and 409 come back with Upload-Offset", async () => {
    const { key } = await newAccount();
    const instance = await runningInstance(agent, key);
    const answerNext = (status: number, offset: number, body?: unknown) =>
      agent.waitFor((m): m is FilesOpen => m.type === "files_open" && m.instance_id === instance.id && m.upload !== undefined && !answered.has(m.stream)).then(async (message) => {
        answered.add(message.stream);
        await agent.waitFor((m) => m.type === "end" && "stream" in m && m.stream === message.stream);
        const headers: [string, string][] = [["upload-offset", String(offset)]];
        if (body === undefined) {
          agent.send({ type: "http_response", stream: message.stream, status, headers });
        } else {
          agent.send({ type: "http_response", stream: message.stream, status, headers: [...headers, ["content-type", "application/json"]] });
          agent.sendData(DataKind.body, message.stream, new TextEncoder().encode(JSON.stringify(body)));
        }
        agent.send({ type: "end", stream: message.stream });
        return message;
      });
    const answered = new Set<number>();
    const part = (offset: number, final = "") =>
      call("PUT", `/v1/instances/${instance.id}/files?path=/data/model.bin&upload=part-test-upload-01&offset=${offset}${final}`, {
        key, rawBody: new Uint8Array(1000), headers: { "content-type": "application/octet-stream" },
      });

    const staged = answerNext(202, 1000, undefined);
    const first = await part(0);
    expect(first.status).toBe(202);
    expect(first.headers.get("upload-offset")).toBe("1000");
    const message = await staged;
    expect(message).toMatchObject({ op: "put", path: "/data/model.bin", upload: { id: "part-test-upload-01", offset: 0, final: false } });
    const { disk_gb } = (await callJson<{ disk_gb: number }>("GET", `/v1/instances/${instance.id}`, { key })).body;
    expect(message.upload!.max_bytes).toBe(disk_gb * 2 ** 30);
    expect(agent.bodies.get(message.stream)).toBe(1000);

    const wrong = answerNext(409, 1000, { error: "conflict", message: "upload part-test-upload-01 has 1000 bytes staged, not 0" });
    const conflict = await callJson("PUT", `/v1/instances/${instance.id}/files?path=/data/model.bin&upload=part-test-upload-01&offset=0&final=1`, {
      key, rawBody: new Uint8Array(10), headers: { "content-type": "application/octet-stream" },
    });
    expect(conflict).toMatchObject({ status: 409, body: { error: "conflict", message: expect.stringContaining("1000 bytes staged") } });
    expect(conflict.headers.get("upload-offset")).toBe("1000");
    expect((await wrong).upload).toMatchObject({ offset: 0, final: true });
  });

  it("refuses a bad upload id, offset or final, and a path that names no file, each 400 naming the field, before the agent hears of it", async () => {
    const { key } = await newAccount();
    const instance = await runningInstance(agent, key);
    const put = (query: string) => callJson("PUT", `/v1/instances/${instance.id}/files?${query}`, { key, rawBody: new Uint8Array(5) });
    const cases: [string, RegExp][] = [
      ["path=/data/x.bin&upload=short&offset=0", /^upload: must be 16 to 64 of A-Z, a-z, 0-9, _ and -$/],
      ["path=/data/x.bin&upload=has%2Fslash%2Fin-it-0001&offset=0", /^upload: must be 16/],
      [`path=/data/x.bin&upload=${"a".repeat(65)}&offset=0`, /^upload: must be 16/],
      ["path=/data/x.bin&upload=good-upload-id-0001", /^offset: is required with upload$/],
      ["path=/data/x.bin&upload=good-upload-id-0001&offset=-1", /^offset: must be a whole number/],
      ["path=/data/x.bin&upload=good-upload-id-0001&offset=1.5", /^offset: must be a whole number/],
      ["path=/data/x.bin&upload=good-upload-id-0001&offset=99999999999999999", /^offset: must be a whole number/],
      ["path=/data/x.bin&upload=good-upload-id-0001&offset=0&final=yes", /^final: must be 1$/],
      ["path=/data&offset=0", /^offset: is only taken with upload$/],
      ["path=/data&final=1", /^final: is only taken with upload$/],
      ["path=/data/&upload=good-upload-id-0001&offset=0", /^path: must name a file with upload/],
      ["path=/data/..&upload=good-upload-id-0001&offset=0", /^path: must name a file with upload/],
      ["path=data/x.bin&upload=good-upload-id-0001&offset=0", /^path: must be an absolute path/],
    ];
    for (const [query, message] of cases) {
      const refused = await put(query);
      expect({ query, ...refused }).toMatchObject({ query, status: 400, body: { error: "invalid", message: expect.stringMatching(message) } });
    }
    expect(agent.received.filter((m) => m.type === "files_open" && m.instance_id === instance.id)).toEqual([]);
  });
});
