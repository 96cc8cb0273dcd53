// Container specs for tests.
import type { ContainerSpec } from "../../../protocol/messages.ts";

export function testSpec(instanceId: string, overrides: Partial<ContainerSpec> = {}): ContainerSpec {
  return {
    instance_id: instanceId,
    image: "localhost/gpu-rental-dev:latest",
    template: "vllm",
    model: "Qwen/Qwen2.5-0.5B-Instruct",
    env: { INSTANCE_TOKEN: "tok" },
    ports: [8000],
    gpu_indices: [0],
    disk_gb: 10,
    command: [],
    ...overrides,
  };
}

/** A fresh, valid instance id (`i-` + 16 base32 chars), so tests sharing an engine never collide. */
export function randomInstanceId(): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz234567";
  return `i-${Array.from({ length: 16 }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join("")}`;
}
