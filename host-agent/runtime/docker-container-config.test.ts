// The Engine API create options derived from a spec.
import { describe, expect, it } from "vitest";
import { testSpec } from "../../test/support/agent/specs.ts";
import { containerCreateOptions, volumeCreateOptions } from "./docker-container-config.ts";

const ID = "i-bbbbbbbbbbbbbbbb";

describe("docker container config", () => {
  it("labels the container, publishes every port on loopback, mounts data and model cache, requests the GPUs", () => {
    const options = containerCreateOptions(testSpec(ID, { ports: [8000, 8265], gpu_indices: [2, 3], env: { A: "1" } }), "/var/cache/hf");
    expect(options).toEqual({
      name: `gpu-rental-${ID}`,
      Image: "localhost/gpu-rental-dev:latest",
      Env: ["A=1"],
      Labels: { "gpu-rental.managed": "true", "gpu-rental.instance": ID },
      ExposedPorts: { "8000/tcp": {}, "8265/tcp": {} },
      HostConfig: {
        PortBindings: {
          "8000/tcp": [{ HostIp: "127.0.0.1", HostPort: "" }],
          "8265/tcp": [{ HostIp: "127.0.0.1", HostPort: "" }],
        },
        Binds: [`gpu-rental-${ID}:/data`, "/var/cache/hf:/root/.cache/huggingface:rw"],
        DeviceRequests: [{ Driver: "nvidia", DeviceIDs: ["2", "3"], Capabilities: [["gpu"]] }],
      },
    });
  });

  it("runs the spec's command, or the image's own when it has none", () => {
    const command = ["--model", "Qwen/Qwen2.5-0.5B-Instruct", "--port", "8000"];
    expect(containerCreateOptions(testSpec(ID, { command }), "/c").Cmd).toEqual(command);
    expect(containerCreateOptions(testSpec(ID), "/c")).not.toHaveProperty("Cmd");
  });

  it("requests no devices for a spec without GPUs, and labels the volume with its size", () => {
    const spec = testSpec(ID, { gpu_indices: [], disk_gb: 50 });
    expect(containerCreateOptions(spec, "/c").HostConfig).not.toHaveProperty("DeviceRequests");
    expect(volumeCreateOptions(spec)).toEqual({
      Name: `gpu-rental-${ID}`,
      Labels: { "gpu-rental.managed": "true", "gpu-rental.instance": ID, "gpu-rental.disk_gb": "50" },
    });
  });
});
