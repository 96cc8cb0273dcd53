// What a host says when it creates a container (e.g. that disk_gb is not enforced there) reaches
// the instance's events.
import { describe, expect, it } from "vitest";
import { callJson, newAccount, seedGpuModels } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { until } from "../../../test/support/workerd/poll.ts";

const NOTICE = "disk_gb (50 GB) is not enforced on this host: --storage-opt is supported only for overlay over xfs with 'pquota' mount option";

describe("the creating report", () => {
  it("shows the host's notice in the instance's event, and a plain event when there is none", async () => {
    await seedGpuModels();
    const agent = await FakeAgent.register("notice-host");
    await agent.connect(["rtx4090", "rtx4090"]);
    const { key } = await newAccount();
    const events = async (id: string) =>
      (await callJson<{ items: { message: string }[] }>("GET", `/v1/instances/${id}/events`, { key })).body.items.map((e) => e.message);
    const ids: string[] = [];
    for (const message of [NOTICE, ""]) {
      const { body } = await callJson<{ id: string }>("POST", "/v1/instances", { key, body: { gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" } });
      await agent.waitForCommand(body.id, "create");
      agent.report(body.id, "creating", message);
      ids.push(body.id);
    }
    expect(await until(() => events(ids[0]!), (log) => log.some((m) => m.startsWith("Creating container")), "the first event")).toContain(`Creating container: ${NOTICE}`);
    expect(await until(() => events(ids[1]!), (log) => log.some((m) => m.startsWith("Creating container")), "the second event")).toContain("Creating container");
    agent.disconnect();
  });
});
