// A degraded machine (its agent says it takes no new instances, and why): the operator sees the
// reason, its GPUs are offered to no one, a launch is placed elsewhere or refused, a start is
// refused; and all of it ends when the agent says it is healthy again.
import { describe, expect, it } from "vitest";
import { admin, callJson, newAccount, seedGpuModels } from "../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { runningOn } from "../../test/support/workerd/instances.ts";
import { until } from "../../test/support/workerd/poll.ts";

const REASON = "tenant firewall: the nftables table inet gpu_rental is missing (fix: run firewall.sh as root)";
const LAUNCH = { gpu_model: "h100-80gb", gpu_count: 1, template: "pytorch" };

const machine = async (id: number) => ((await admin("GET", "/machines")).body.items as { id: number; degraded: string; free_gpus: number }[]).find((m) => m.id === id)!;
const freeH100s = async (key: string) =>
  (await callJson<{ gpus: { model: string; free_gpus: number }[] }>("GET", "/v1/gpus", { key })).body.gpus.find((g) => g.model === "h100-80gb")?.free_gpus ?? 0;

describe("a degraded machine", () => {
  it("is shown with its reason, offers no GPU and takes no launch until its agent is healthy again", async () => {
    await seedGpuModels();
    const account = await newAccount();
    const agent = await FakeAgent.register("degraded-host");
    await agent.connect(["h100-80gb", "h100-80gb"], [], [], { degraded: REASON });
    expect(await machine(agent.machineId)).toMatchObject({ degraded: REASON, free_gpus: 2 });
    expect(await freeH100s(account.key)).toBe(0);
    const refused = await callJson("POST", "/v1/instances", { key: account.key, body: LAUNCH });
    expect(refused).toMatchObject({ status: 409, body: { error: "no_capacity" } });

    agent.send({ type: "health", degraded: "" });
    await until(() => freeH100s(account.key), (free) => free === 2, "the machine's GPUs offered again", 500);
    expect(await machine(agent.machineId)).toMatchObject({ degraded: "" });
    const id = await runningOn(agent, account.key, LAUNCH);

    await callJson("POST", `/v1/instances/${id}/stop`, { key: account.key });
    await agent.waitForCommand(id, "stop");
    agent.report(id, "stopped");
    await until(() => callJson<{ status: string }>("GET", `/v1/instances/${id}`, { key: account.key }), (r) => r.body.status === "stopped", "stopped", 500);
    agent.send({ type: "health", degraded: REASON });
    await until(() => machine(agent.machineId), (m) => m.degraded === REASON, "the reason shown", 500);
    expect(await callJson("POST", `/v1/instances/${id}/start`, { key: account.key })).toMatchObject({
      status: 409,
      body: { error: "gpus_busy", message: "the instance's machine takes no new instances now (it is under maintenance); try again later" },
    });
    await agent.leave();
  });
});
