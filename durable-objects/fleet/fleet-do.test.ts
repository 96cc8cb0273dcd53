// FleetDO through the real Worker: hosts report driver and CUDA versions, placement keeps templates
// off hosts whose CUDA is too old (409 no_capacity saying why), and unknown GPUs are shown to the
// operator but never offered.
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
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
  it("gains the version and degraded columns in place and keeps its machines", async () => {
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
        agent_version: "", driver_version: "", cuda_version: "",
      },
    ]);
  });
});
