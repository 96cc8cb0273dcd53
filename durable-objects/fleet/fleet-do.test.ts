// FleetDO through the real Worker: hosts report driver and CUDA versions, placement keeps templates
// off hosts whose CUDA is too old (409 no_capacity saying why), never promises a host more disk_gb
// than its disk has, and unknown GPUs are shown to the operator but never offered.
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { machineOf } from "../../core/env.ts";
import { testSpec } from "../../test/support/agent/specs.ts";
import { FleetDO } from "./fleet-do.ts";
import { admin, callJson, newAccount, seedGpuModels } from "../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { until } from "../../test/support/workerd/poll.ts";

interface MachineItem {
  id: number;
  name: string;
  online: boolean;
  gpus: { model: string; index: number; name: string }[];
  free_gpus: number;
  disk: { total_bytes: number; free_bytes: number; promised_gb: number } | null;
  agent_version: string;
  driver_version: string;
  cuda_version: string;
}

const machine = async (id: number) => ((await admin("GET", "/machines")).body.items as MachineItem[]).find((m) => m.id === id)!;
const freeGpus = async (key: string, model: string) =>
  (await callJson<{ gpus: { model: string; free_gpus: number }[] }>("GET", "/v1/gpus", { key })).body.gpus.find((g) => g.model === model)?.free_gpus ?? 0;
const launch = (key: string, body: Record<string, unknown>) =>
  callJson<{ id: string; machine_id: number | null; error?: string; message?: string }>("POST", "/v1/instances", { key, body: { gpu_model: "h100-80gb", gpu_count: 1, ...body } });

beforeAll(seedGpuModels);

describe("CUDA-aware placement", () => {
  it("places a template only on a host whose CUDA is at least its min_cuda, comparing versions as numbers", async () => {
    const { key } = await newAccount();
    const old = await FakeAgent.register("cuda-12.4");
    await old.connect(["h100-80gb"], [], [], { driver_version: "550.54.15", cuda_version: "12.4" });
    await until(() => freeGpus(key, "h100-80gb"), (free) => free === 1, "the CUDA 12.4 host");

    const refused = await launch(key, { template: "vllm", model: "qwen2.5-0.5b-instruct" });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      error: "no_capacity",
      message: "template vllm needs CUDA 12.8 or newer; the machines with 1 free h100-80gb GPU(s) have CUDA 12.4",
    });
    expect((await callJson<{ items: unknown[] }>("GET", "/v1/instances", { key })).body.items).toEqual([]);

    const ollama = await launch(key, { template: "ollama" });
    expect(ollama.status).toBe(201);
    expect(ollama.body.machine_id).toBe(old.machineId);

    const newer = await FakeAgent.register("cuda-12.10");
    await newer.connect(["h100-80gb"], [], [], { driver_version: "580.65.06", cuda_version: "12.10" });
    await until(() => freeGpus(key, "h100-80gb"), (free) => free === 1, "the CUDA 12.10 host");
    const vllm = await launch(key, { template: "vllm", model: "qwen2.5-0.5b-instruct" });
    expect(vllm.status).toBe(201);
    expect(vllm.body.machine_id).toBe(newer.machineId);
    old.disconnect();
    newer.disconnect();
  });

  it("a host that reports no CUDA version gets no template", async () => {
    const { key } = await newAccount();
    const unknown = await FakeAgent.register("cuda-unknown");
    await unknown.connect(["a100-80gb"], [], [], { cuda_version: "" });
    await until(() => freeGpus(key, "a100-80gb"), (free) => free === 1, "the host");
    const refused = await launch(key, { gpu_model: "a100-80gb", template: "custom", image: "busybox" });
    expect(refused.body).toEqual({
      error: "no_capacity",
      message: "template custom needs CUDA 12.0 or newer; the machines with 1 free a100-80gb GPU(s) have CUDA unknown",
    });
    unknown.disconnect();
  });
});

describe("disk-aware placement", () => {
  const GiB = 2 ** 30;
  const diskLaunch = (key: string, diskGb: number) => launch(key, { gpu_model: "disk-gpu", template: "ollama", disk_gb: diskGb });

  it("never promises a host more disk_gb than its disk has: a launch past it is 409 no_capacity, and a destroyed instance's disk comes back", async () => {
    await admin("PUT", "/gpu-models/disk-gpu", { display_name: "Disk GPU", vram_gb: 24, price_hour_micros: 100_000, tier: "consumer", arch: "ada" });
    const { key } = await newAccount();
    const host = await FakeAgent.register("disk-250");
    await host.connect(["disk-gpu", "disk-gpu", "disk-gpu", "disk-gpu"], [], [], { disk: { total_bytes: 250 * GiB + 12_345, free_bytes: 180 * GiB } });
    expect((await until(() => machine(host.machineId), (m) => m.online, "the host")).disk).toEqual({ total_bytes: 250 * GiB + 12_345, free_bytes: 180 * GiB, promised_gb: 0 });

    const big = await diskLaunch(key, 200);
    expect(big.status).toBe(201);
    await until(() => machine(host.machineId), (m) => m.disk?.promised_gb === 200, "200 GB promised");
    const refused = await diskLaunch(key, 51);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      error: "no_capacity",
      message: "no machine with 1 free disk-gpu GPU(s) and CUDA 12.1 or newer has 51 GB of disk left for a new instance; the most any has is 50 GB",
    });
    expect((await diskLaunch(key, 50)).status).toBe(201);
    await until(() => machine(host.machineId), (m) => m.disk?.promised_gb === 250, "250 GB promised");
    expect((await diskLaunch(key, 10)).status).toBe(409);

    // Destroyed, and gone from the host: its 200 GB may be promised again.
    expect((await callJson("DELETE", `/v1/instances/${big.body.id}`, { key })).status).toBe(204);
    await host.waitForCommand(big.body.id, "destroy");
    host.report(big.body.id, "destroyed");
    await until(() => machine(host.machineId), (m) => m.disk?.promised_gb === 50, "the destroyed instance's disk back");
    expect((await diskLaunch(key, 200)).status).toBe(201);
    host.disconnect();
  });

  it("the host's own object refuses a reservation its disk cannot take, whatever the fleet's index proposed", async () => {
    const host = await FakeAgent.register("disk-race");
    await host.connect(["disk-gpu", "disk-gpu"], [], [], { disk: { total_bytes: 100 * GiB, free_bytes: 100 * GiB } });
    const reserve = (instanceId: string, diskGb: number) => machineOf(env, host.machineId).reserve({
      account_id: "acc-disk-race", instance_id: instanceId, gpu_model: "disk-gpu", gpu_count: 1, generation: 1,
      spec: testSpec(instanceId, { disk_gb: diskGb }), key_set: { account_id: "acc-disk-race", version: 1, hashes: [] },
    });
    expect(await reserve("i-diskraceaaaaaaaa", 80)).toMatchObject({ ok: true });
    expect(await reserve("i-diskracebbbbbbbb", 21)).toEqual({ ok: false, code: "no_capacity", message: "not enough disk on this machine: 20 GB left for new instances" });
    expect(await reserve("i-diskracecccccccc", 20)).toMatchObject({ ok: true });
    host.disconnect();
  });

  it("a host whose agent does not say its disk (an older agent) is placed on as before, and listed without one", async () => {
    const { key } = await newAccount();
    const host = await FakeAgent.register("disk-unknown");
    await host.connect(["disk-gpu"]);
    expect((await until(() => machine(host.machineId), (m) => m.online, "the host")).disk).toBeNull();
    expect((await diskLaunch(key, 2000)).status).toBe(201);
    host.disconnect();
  });
});

describe("the operator's machine list", () => {
  it("shows each GPU's name and the agent, driver and CUDA versions; an unknown GPU is listed but never offered", async () => {
    const { key } = await newAccount();
    const before = await freeGpus(key, "rtx4090");
    const host = await FakeAgent.register("mixed");
    await host.connect([{ model: "", name: "NVIDIA GeForce GTX 680" }, { model: "rtx4090", name: "NVIDIA GeForce RTX 4090" }], [], [], {
      agent_version: "0.1.0",
      driver_version: "550.127.05",
      cuda_version: "12.4",
    });
    const listed = await until(() => machine(host.machineId), (m) => m.online && m.gpus.length === 2, "the hello in the fleet index");
    expect(listed).toEqual({
      id: host.machineId,
      name: "mixed",
      online: true,
      degraded: "",
      gpus: [
        { model: "", index: 0, name: "NVIDIA GeForce GTX 680" },
        { model: "rtx4090", index: 1, name: "NVIDIA GeForce RTX 4090" },
      ],
      free_gpus: 2,
      disk: null,
      last_seen_at: expect.any(String),
      agent_version: "0.1.0",
      driver_version: "550.127.05",
      cuda_version: "12.4",
    });
    expect(await freeGpus(key, "rtx4090")).toBe(before + 1);
    const gpus = (await callJson<{ gpus: { model: string }[] }>("GET", "/v1/gpus", { key })).body.gpus;
    expect(gpus.map((g) => g.model)).not.toContain("");
    const unknownModel = await launch(key, { gpu_model: "", template: "ollama" });
    expect(unknownModel.status).toBe(400);
    host.disconnect();
  });

  it("a machine no agent has joined yet shows empty versions", async () => {
    const created = await admin("POST", "/machines", { name: "fresh" });
    expect(await machine(created.body.id as number)).toMatchObject({ gpus: [], agent_version: "", driver_version: "", cuda_version: "" });
  });
});

describe("a fleet database from before host versions were indexed", () => {
  it("gains the version, degraded and disk columns in place and keeps its machines", async () => {
    const stub = env.FLEET.getByName("legacy-fleet");
    const machines = await runInDurableObject(stub, (_: FleetDO, state) => {
      state.storage.sql.exec("DROP TABLE machines");
      state.storage.sql.exec(`CREATE TABLE machines (
        id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, created_at TEXT NOT NULL, online INTEGER NOT NULL,
        last_seen_at TEXT, gpus TEXT NOT NULL, free_indices TEXT NOT NULL, cached_models TEXT NOT NULL,
        state_version INTEGER NOT NULL DEFAULT 0)`);
      state.storage.sql.exec(`INSERT INTO machines (name, created_at, online, last_seen_at, gpus, free_indices, cached_models)
        VALUES ('old', '2026-01-01T00:00:00.000Z', 0, NULL, '[{"model":"rtx4090","index":0}]', '[0]', '[]')`);
      return new FleetDO(state, env).listMachines();
    });
    expect(machines).toEqual([
      {
        id: 1, name: "old", online: false, degraded: "", gpus: [{ model: "rtx4090", index: 0, name: "" }], free_gpus: 1, last_seen_at: null,
        agent_version: "", driver_version: "", cuda_version: "", disk: null,
      },
    ]);
  });
});
