// The FleetDO's free-GPU index in memory: what it offers, and that only the newest index update counts.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { MachineState } from "../contracts/fleet.ts";
import { FreeGpuIndex, freeByModel } from "./free-gpu-index.ts";

const gpus = [
  { model: "idx-gpu", index: 0, name: "A" },
  { model: "idx-gpu", index: 1, name: "A" },
  { model: "", index: 2, name: "Unknown" },
];

describe("free-GPU index", () => {
  it("counts free GPUs per known model, never a GPU of model \"\"", () => {
    expect(freeByModel(gpus, [0, 2])).toEqual(new Map([["idx-gpu", 1]]));
    expect(freeByModel(gpus, [])).toEqual(new Map());
  });

  it("holds online machines that take new instances only", () => {
    const index = new FreeGpuIndex();
    index.set(1, { online: true, degraded: "", gpus, free_indices: [0, 1], cuda_version: "12.8", cached_models: ["m"], disk: null });
    index.set(2, { online: true, degraded: "", gpus, free_indices: [1], cuda_version: "12.4", cached_models: [], disk: null });
    index.set(2, { online: false, degraded: "", gpus, free_indices: [1], cuda_version: "12.4", cached_models: [], disk: null });
    index.set(3, { online: true, degraded: "tenant firewall: missing", gpus, free_indices: [0, 1], cuda_version: "12.8", cached_models: [], disk: null });
    expect([...index.machines()]).toEqual([[1, { free: new Map([["idx-gpu", 2]]), cuda_version: "12.8", disk_room_gb: null, cached_models: ["m"], held_volumes: new Map() }]]);
  });

  it("in the FleetDO, an index update older than the last one applied changes nothing; a newer one does", async () => {
    const fleet = env.FLEET.getByName("free-gpu-index-test");
    await fleet.putGpuModel({ model: "idx-gpu", display_name: "Idx", vram_gb: 24, price_hour_micros: 1, tier: "consumer", arch: "x" });
    const created = await fleet.createMachine("idx-host");
    if (!created.ok) throw new Error(created.message);
    const state = (version: number, online: boolean, free: number[], degraded = ""): MachineState => ({
      version, online, degraded, last_seen_at: null, gpus, free_indices: free, cached_models: [], agent_version: "", driver_version: "", cuda_version: "12.8", disk: null,
    });
    const free = async () => (await fleet.listGpus()).find((g) => g.model === "idx-gpu")!.free_gpus;
    const place = () => fleet.placementCandidates({ gpu_model: "idx-gpu", gpu_count: 2, template: "t", min_cuda: "12.0", disk_gb: 50 });
    await fleet.reportMachine(created.id, state(5, true, [0, 1]));
    expect([await free(), await place()]).toEqual([2, { ok: true, machine_ids: [created.id] }]);
    await fleet.reportMachine(created.id, state(4, true, []));
    expect(await free()).toBe(2);
    await fleet.reportMachine(created.id, state(6, true, [1]));
    expect([await free(), (await place()).ok]).toEqual([1, false]);
    await fleet.reportMachine(created.id, state(7, true, [0, 1], "tenant firewall: missing"));
    expect([await free(), (await place()).ok]).toEqual([0, false]);
    expect((await fleet.listMachines()).find((m) => m.id === created.id)).toMatchObject({ online: true, degraded: "tenant firewall: missing", free_gpus: 2 });
    await fleet.reportMachine(created.id, state(8, true, [0, 1]));
    expect([await free(), await place()]).toEqual([2, { ok: true, machine_ids: [created.id] }]);
    await fleet.reportMachine(created.id, state(9, false, [0, 1]));
    expect(await free()).toBe(0);
  });
});
