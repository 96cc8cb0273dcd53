// Placement as a pure function of the fleet index (GPUs, CUDA, the disk left to promise, the volume
// versions held), and CUDA versions compared as numbers.
import { describe, expect, it } from "vitest";
import { cudaAtLeast } from "./cuda-version.ts";
import { placeLaunch } from "./placement.ts";

const request = { gpu_model: "h100-80gb", gpu_count: 2, template: "vllm", min_cuda: "12.8", disk_gb: 100 };

describe("CUDA versions", () => {
  it.each([
    ["12.8", "12.8", true],
    ["12.10", "12.8", true],
    ["12.9", "12.10", false],
    ["13.0", "12.8", true],
    ["12.4", "12.8", false],
    ["12", "12.0", true],
    ["12.8.1", "12.8", true],
    ["", "12.0", false],
    ["twelve", "12.0", false],
  ])("%j satisfies %j: %s", (have, need, expected) => {
    expect(cudaAtLeast(have, need)).toBe(expected);
  });
});

describe("placement", () => {
  it("proposes machines with enough free GPUs and a new enough CUDA, fewest free first", () => {
    const machines = [
      { id: 1, free: 8, cuda_version: "12.8", disk_room_gb: null },
      { id: 2, free: 2, cuda_version: "12.10", disk_room_gb: null },
      { id: 3, free: 2, cuda_version: "12.4", disk_room_gb: null },
      { id: 4, free: 1, cuda_version: "13.0", disk_room_gb: null },
      { id: 5, free: 4, cuda_version: "13.0", disk_room_gb: null },
    ];
    expect(placeLaunch(machines, request)).toEqual({ ok: true, machine_ids: [2, 5, 1] });
  });

  it("says no GPUs are free when no machine has enough, whatever their CUDA", () => {
    expect(placeLaunch([{ id: 1, free: 1, cuda_version: "13.0", disk_room_gb: null }], request)).toEqual({
      ok: false,
      code: "no_capacity",
      message: "no machine has 2 free h100-80gb GPU(s) right now",
    });
  });

  it("says the CUDA version is why when only CUDA stands in the way", () => {
    const machines = [
      { id: 1, free: 2, cuda_version: "12.4", disk_room_gb: null },
      { id: 2, free: 4, cuda_version: "", disk_room_gb: null },
      { id: 3, free: 8, cuda_version: "12.4", disk_room_gb: null },
    ];
    expect(placeLaunch(machines, request)).toEqual({
      ok: false,
      code: "no_capacity",
      message: "template vllm needs CUDA 12.8 or newer; the machines with 2 free h100-80gb GPU(s) have CUDA 12.4, unknown",
    });
  });

  it("proposes only machines whose disk has the launch's disk_gb left to promise; one that never said its disk has no limit", () => {
    const machines = [
      { id: 1, free: 2, cuda_version: "13.0", disk_room_gb: 99 },
      { id: 2, free: 4, cuda_version: "13.0", disk_room_gb: 100 },
      { id: 3, free: 8, cuda_version: "13.0", disk_room_gb: null },
      { id: 4, free: 2, cuda_version: "13.0", disk_room_gb: -20 },
    ];
    expect(placeLaunch(machines, request)).toEqual({ ok: true, machine_ids: [2, 3] });
  });

  it("says the disk is why when only the disk stands in the way", () => {
    const machines = [
      { id: 1, free: 2, cuda_version: "13.0", disk_room_gb: 60 },
      { id: 2, free: 4, cuda_version: "13.0", disk_room_gb: -5 },
      { id: 3, free: 4, cuda_version: "12.4", disk_room_gb: 500 },
    ];
    expect(placeLaunch(machines, request)).toEqual({
      ok: false,
      code: "no_capacity",
      message: "no machine with 2 free h100-80gb GPU(s) and CUDA 12.8 or newer has 100 GB of disk left for a new instance; the most any has is 60 GB",
    });
  });

  it("puts first the machines holding the launch's volumes at their latest versions, read-write ones before read-only ones, then best fit", () => {
    const held = (entries: [string, number][]) => new Map(entries);
    const machines = [
      { id: 1, free: 2, cuda_version: "13.0", disk_room_gb: null },
      { id: 2, free: 8, cuda_version: "13.0", disk_room_gb: null, held_volumes: held([["vol_ro", 3]]) },
      { id: 3, free: 8, cuda_version: "13.0", disk_room_gb: null, held_volumes: held([["vol_rw", 7]]) },
      { id: 4, free: 4, cuda_version: "13.0", disk_room_gb: null, held_volumes: held([["vol_rw", 6], ["vol_ro", 3]]) },
      { id: 5, free: 4, cuda_version: "13.0", disk_room_gb: null, held_volumes: held([["vol_rw", 7], ["vol_ro", 3]]) },
    ];
    const volume_versions = [{ volume_id: "vol_rw", version: 7, read_only: false }, { volume_id: "vol_ro", version: 3, read_only: true }];
    expect(placeLaunch(machines, { ...request, volume_versions })).toEqual({ ok: true, machine_ids: [5, 3, 4, 2, 1] });
    expect(placeLaunch(machines, request)).toEqual({ ok: true, machine_ids: [1, 4, 5, 2, 3] });
  });
});
