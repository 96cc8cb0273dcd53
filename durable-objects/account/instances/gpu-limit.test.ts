// The GPUs an account may hold at once: the AccountDO counts what its live instances hold on the
// same turn it launches or starts, so two launches at once cannot both slip under the limit.
import { beforeAll, describe, expect, it } from "vitest";
import { admin, callJson, newAccount } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";

let agent: FakeAgent;

beforeAll(async () => {
  agent = await FakeAgent.online("gpu-limit-host", Array(8).fill("h100-80gb"));
});

const launch = (key: string, gpuCount: number) =>
  callJson<{ id: string; error?: string; message?: string }>("POST", "/v1/instances", { key, body: { gpu_model: "h100-80gb", gpu_count: gpuCount, template: "pytorch" } });

async function limited(maxGpus: number | null): Promise<{ id: string; key: string }> {
  const account = await newAccount(1_000_000_000);
  const set = await admin("PATCH", `/accounts/${account.id}`, { max_gpus: maxGpus });
  expect(set).toMatchObject({ status: 200, body: { id: account.id, max_gpus: maxGpus ?? 16 } });
  return account;
}

describe("an account's GPU limit", () => {
  it("refuses a launch that would hold more than max_gpus with 409 conflict naming the limit and what is held; a stopped instance holds none", async () => {
    const { key } = await limited(3);
    const first = await launch(key, 2);
    expect(first.status).toBe(201);
    expect(await launch(key, 2)).toMatchObject({
      status: 409, body: { error: "conflict", message: expect.stringContaining("at most 3 GPUs at once (max_gpus) and holds 2") },
    });
    expect((await callJson("POST", `/v1/instances/${first.body.id}/stop`, { key })).status).toBe(204);
    const second = await launch(key, 3);
    expect(second.status).toBe(201);
    expect((await callJson("POST", `/v1/instances/${first.body.id}/start`, { key })).body).toMatchObject({ error: "conflict", message: expect.stringContaining("holds 3") });
  });

  it("lets exactly one of two launches at once through when only one fits", async () => {
    const { key } = await limited(3);
    const answers = await Promise.all([launch(key, 2), launch(key, 2)]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
  });

  it("is ACCOUNT_MAX_GPUS (16) unless set, is shown to the operator, and null sets it back", async () => {
    expect((await admin("POST", "/accounts", {})).body).toMatchObject({ max_gpus: 16 });
    const { id } = await limited(0);
    expect((await admin("PATCH", `/accounts/${id}`, { max_gpus: null })).body).toMatchObject({ max_gpus: 16 });
  });

  it("refuses a limit that is not a whole number from 0 to 10000, and an account that does not exist", async () => {
    const { id } = await newAccount();
    for (const max_gpus of [-1, 1.5, 10_001, "4"]) {
      expect(await admin("PATCH", `/accounts/${id}`, { max_gpus })).toMatchObject({ status: 400, body: { error: "invalid", message: expect.stringContaining("max_gpus") } });
    }
    expect((await admin("PATCH", "/accounts/acc-nosuchaccount000", { max_gpus: 2 })).status).toBe(404);
  });
});
