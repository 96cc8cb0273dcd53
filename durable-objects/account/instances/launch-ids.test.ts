// A launch makes a fresh instance id for every machine it tries, naming that machine, so the proxy
// finds the instance's host from its id; an attempt a machine refuses leaves no row behind.
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { machineIdOfInstance } from "../../../core/ids.ts";
import { callJson, newAccount, seedGpuModels } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import type { ReserveRequest } from "../../contracts/object-messages.ts";

describe("launch ids", () => {
  it("each placement candidate gets its own id naming it; the refused attempt's row is gone", async () => {
    await seedGpuModels();
    const first = await FakeAgent.register("ids-host-1");
    const second = await FakeAgent.register("ids-host-2");
    await first.connect(["a100-80gb"]);
    await second.connect(["a100-80gb"]);
    // The first machine asked refuses, as one whose last GPU was just taken would.
    const asked: { machineId: number; instanceId: string }[] = [];
    let restore = () => {};
    await runInDurableObject(env.MACHINES.getByName(String(first.machineId)), (instance) => {
      type Reserve = (this: { record: { read(): { id: number } } }, request: ReserveRequest) => unknown;
      const prototype = Object.getPrototypeOf(instance) as { reserve: Reserve };
      const reserve = prototype.reserve;
      prototype.reserve = function (request) {
        asked.push({ machineId: this.record.read().id, instanceId: request.instance_id });
        return asked.length === 1 ? { ok: false, code: "no_capacity", message: "taken" } : reserve.call(this, request);
      };
      restore = () => {
        prototype.reserve = reserve;
      };
    });
    try {
      const { id: accountId, key } = await newAccount();
      const launched = await callJson<{ id: string; machine_id: number }>("POST", "/v1/instances", { key, body: { gpu_model: "a100-80gb", gpu_count: 1, template: "pytorch" } });
      expect(launched.status).toBe(201);
      expect(asked.length).toBe(2);
      expect(asked.map((a) => machineIdOfInstance(a.instanceId))).toEqual(asked.map((a) => a.machineId));
      expect(new Set(asked.map((a) => a.machineId))).toEqual(new Set([first.machineId, second.machineId]));
      expect(launched.body).toMatchObject({ id: asked[1]!.instanceId, machine_id: asked[1]!.machineId });
      const rows = await runInDurableObject(env.ACCOUNTS.getByName(accountId), (_, state) =>
        state.storage.sql.exec<{ id: string }>("SELECT id FROM instances").toArray().map((row) => row.id));
      expect(rows).toEqual([launched.body.id]);
    } finally {
      restore();
    }
  });
});
