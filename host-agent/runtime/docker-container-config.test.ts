// The Engine API create options derived from a spec: what isolates a tenant's container.
import { describe, expect, it } from "vitest";
import { testSpec } from "../../test/support/agent/specs.ts";
import { containerCreateOptions, type ContainerPlacement } from "./docker-container-config.ts";

const ID = "i-bbbbbbbbbbbbbbbb";
const GIB = 1024 ** 3;
const share = { memory_bytes: 60 * GIB, nano_cpus: 7_500_000_000 };
const placement: ContainerPlacement = { network: `gpu-rental-${ID}`, share, cachedModelDir: null, enforceDisk: true, notice: "", logFileBytes: 50 * 1024 ** 2, gpuDevices: true };

describe("docker container config", () => {
  it("labels the container, publishes every port on loopback, joins its own network, drops privileges, requests the GPUs, bounds its memory (no swap), CPUs and log", () => {
    const options = containerCreateOptions(testSpec(ID, { ports: [8000, 8265], gpu_indices: [2, 3], env: { A: "1" }, disk_gb: 80 }), placement);
    expect(options).toEqual({
      name: `gpu-rental-${ID}`,
      Image: "localhost/gpu-rental-dev:latest",
      Env: ["A=1", "HF_HOME=/data/huggingface", "HF_HUB_CACHE=/data/huggingface/hub", "HUGGINGFACE_HUB_CACHE=/data/huggingface/hub"],
      Labels: { "gpu-rental.managed": "true", "gpu-rental.instance": ID, "gpu-rental.disk_gb": "80" },
      ExposedPorts: { "8000/tcp": {}, "8265/tcp": {} },
      HostConfig: {
        PortBindings: {
          "8000/tcp": [{ HostIp: "127.0.0.1", HostPort: "" }],
          "8265/tcp": [{ HostIp: "127.0.0.1", HostPort: "" }],
        },
        NetworkMode: `gpu-rental-${ID}`,
        Binds: [],
        Privileged: false,
        CapDrop: ["ALL"],
        CapAdd: ["CHOWN", "DAC_OVERRIDE", "FOWNER", "SETGID", "SETUID"],
        SecurityOpt: ["no-new-privileges"],
        Sysctls: { "net.ipv4.ip_unprivileged_port_start": "0" },
        PidsLimit: 16384,
        Memory: 60 * GIB,
        MemorySwap: 60 * GIB,
        NanoCpus: 7_500_000_000,
        LogConfig: { Type: "json-file", Config: { "max-size": "52428800", "max-file": "2" } },
        StorageOpt: { size: "80G" },
        ShmSize: 16 * GIB,
        DeviceRequests: [{ Driver: "nvidia", DeviceIDs: ["2", "3"], Capabilities: [["gpu"]] }],
      },
    });
  });

  it("mounts only the instance's model's folder of the cache, read-only, and serves it offline", () => {
    const options = containerCreateOptions(testSpec(ID), { ...placement, cachedModelDir: "/var/lib/gpu-rental/hf-cache/hub/models--Qwen--Qwen2.5-0.5B-Instruct" });
    expect(options.HostConfig?.Binds).toEqual(["/var/lib/gpu-rental/hf-cache/hub/models--Qwen--Qwen2.5-0.5B-Instruct:/model-cache/hub/models--Qwen--Qwen2.5-0.5B-Instruct:ro"]);
    expect(options.Env).toEqual(["INSTANCE_TOKEN=tok", "HF_HOME=/data/huggingface", "HF_HUB_CACHE=/model-cache/hub", "HUGGINGFACE_HUB_CACHE=/model-cache/hub", "HF_HUB_OFFLINE=1"]);
  });

  it("keeps the platform's Hugging Face variables over the user's", () => {
    const options = containerCreateOptions(testSpec(ID, { env: { HF_HUB_CACHE: "/root/.cache/huggingface/hub", HF_TOKEN: "hf_x" } }), placement);
    expect(options.Env).toContain("HF_HUB_CACHE=/data/huggingface/hub");
    expect(options.Env).toContain("HF_TOKEN=hf_x");
    expect(options.Env).not.toContain("HF_HUB_CACHE=/root/.cache/huggingface/hub");
  });

  it("sizes /dev/shm at 8 GiB per GPU and never shares the host's IPC namespace", () => {
    for (const gpus of [1, 2, 8]) {
      const host = containerCreateOptions(testSpec(ID, { gpu_indices: [...Array(gpus).keys()] }), placement).HostConfig;
      expect(host?.ShmSize).toBe(gpus * 8 * GIB);
      expect(host).not.toHaveProperty("IpcMode");
    }
  });

  it("leaves the size limit out where the engine cannot enforce it, and keeps the notice as a label", () => {
    const notice = "disk_gb (10 GB) is not enforced on this host: --storage-opt is supported only for overlay over xfs with 'pquota' mount option";
    const options = containerCreateOptions(testSpec(ID), { ...placement, enforceDisk: false, notice });
    expect(options.HostConfig).not.toHaveProperty("StorageOpt");
    expect(options.Labels).toMatchObject({ "gpu-rental.notice": notice });
  });

  it("runs the spec's command, or the image's own when it has none; no GPUs means no devices", () => {
    const command = ["--model", "Qwen/Qwen2.5-0.5B-Instruct", "--port", "8000"];
    expect(containerCreateOptions(testSpec(ID, { command }), placement).Cmd).toEqual(command);
    expect(containerCreateOptions(testSpec(ID), placement)).not.toHaveProperty("Cmd");
    const cpuOnly = containerCreateOptions(testSpec(ID, { gpu_indices: [] }), placement).HostConfig;
    expect(cpuOnly).not.toHaveProperty("DeviceRequests");
    expect(cpuOnly).not.toHaveProperty("ShmSize");
  });

  it("GPUs that are not devices (the dev agent's synthetic ones) become no device request, which an engine would refuse", () => {
    const synthetic = containerCreateOptions(testSpec(ID, { gpu_indices: [0, 1] }), { ...placement, gpuDevices: false }).HostConfig;
    expect(synthetic).not.toHaveProperty("DeviceRequests");
    expect(synthetic?.ShmSize).toBe(2 * 8 * GIB);
  });
});
