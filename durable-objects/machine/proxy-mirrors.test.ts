// The proxy reads an instance's container and whether its host is online from memory after the first
// request (ContainerLedger.containerForProxy, MachineRecord.isOnlineForProxy), through the real Worker
// and MachineDO in workerd: every change of either is seen by the next request after an admitted one.
import { describe, expect, it } from "vitest";
import { call, callJson, machineOnline, newAccount } from "../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { until } from "../../test/support/workerd/poll.ts";
import { proxyGet, runningInstance } from "../../test/support/workerd/proxy-host.ts";

const refusal = async (instanceId: string, key: string) => (await callJson<{ error: string }>("GET", `/v1/instances/${instanceId}/proxy/8888/health`, { key })).body.error;

describe("what the proxy keeps in memory", () => {
  it("a stop, a start and a destroy are seen by the request after an admitted one", async () => {
    const agent = await FakeAgent.online(`mirrors-state-${crypto.randomUUID()}`, ["h100-80gb"]);
    agent.serveHttp();
    const { key } = await newAccount();
    const instance = await runningInstance(agent, key);
    expect((await proxyGet(instance.id, key)).status).toBe(200);
    expect((await call("POST", `/v1/instances/${instance.id}/stop`, { key })).status).toBe(204);
    expect(await refusal(instance.id, key)).toBe("not_running");
    await agent.waitForCommand(instance.id, "stop");
    agent.report(instance.id, "stopped");
    expect((await call("POST", `/v1/instances/${instance.id}/start`, { key })).status).toBe(204);
    await agent.waitForCommand(instance.id, "start");
    expect(await refusal(instance.id, key)).toBe("not_running");
    agent.report(instance.id, "running");
    await until(() => proxyGet(instance.id, key).then((r) => r.status), (status) => status === 200, "admitted again once running");
    expect((await call("DELETE", `/v1/instances/${instance.id}`, { key })).status).toBe(204);
    expect(await refusal(instance.id, key)).toBe("not_running");
    await agent.leave();
  });

  it("the host going offline and coming back is seen by the request after an admitted one", async () => {
    const agent = await FakeAgent.online(`mirrors-host-${crypto.randomUUID()}`, ["h100-80gb"]);
    agent.serveHttp();
    const { key } = await newAccount();
    const instance = await runningInstance(agent, key);
    expect((await proxyGet(instance.id, key)).status).toBe(200);
    await agent.leave();
    expect(await refusal(instance.id, key)).toBe("upstream_unavailable");
    await agent.connect(["h100-80gb"], [{ instance_id: instance.id, state: "running", message: "" }]);
    agent.serveHttp();
    await until(() => machineOnline(agent.machineId), (online) => online, "the host online again");
    expect((await proxyGet(instance.id, key)).status).toBe(200);
    await agent.leave();
  });
});
