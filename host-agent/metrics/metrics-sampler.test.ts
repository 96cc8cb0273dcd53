// One sample per interval for the whole machine: every running container with its CPU, memory and
// the GPUs it was started with; nothing while none runs; the synthetic GPUs following requests served.
import { describe, expect, it } from "vitest";
import type { AgentMessage, GpuInfo } from "../../protocol/messages.ts";
import { createLogger } from "../log.ts";
import type { ContainerUsage } from "../runtime/runtime.ts";
import { MetricsSampler } from "./metrics-sampler.ts";
import { loadOf, SyntheticGpuLoad, syntheticSample } from "../dev/synthetic-gpu-load.ts";

const A = "i-aaaaaaaaaaaaaaaa";
const B = "i-bbbbbbbbbbbbbbbb";
const GPUS: GpuInfo[] = [0, 1, 2].map((index) => ({ index, model: "rtx4090", name: "NVIDIA GeForce RTX 4090", uuid: `GPU-local-${index}`, vram_mb: 24564 }));
const GIB = 1024 ** 3;

function sampler(usage: () => Promise<ContainerUsage[]>) {
  const sent: AgentMessage[] = [];
  const logs: string[] = [];
  let nowMs = 1_000_000;
  const metrics = new MetricsSampler({
    runtime: { usage }, gpus: new SyntheticGpuLoad(GPUS), send: (m) => sent.push(m), intervalMs: 10_000, log: createLogger((l) => logs.push(l)), now: () => nowMs,
  });
  return { metrics, sent, logs, advance: (ms: number) => (nowMs += ms) };
}

const container = (instanceId: string, gpuIndices: number[], cpuNs: number, requestsServed: number | null = 0): ContainerUsage => ({
  instanceId, gpuIndices, cpuNs, memoryBytes: 2 * GIB, requestsServed,
});

describe("the metrics sampler", () => {
  it("sends one message per sample naming every running container with its own GPUs; CPU is a rate from the second reading on, and its seconds so far from the first", async () => {
    let cpu = 0;
    const { metrics, sent, advance } = sampler(async () => [container(A, [0, 2], cpu), container(B, [1], cpu / 2)]);
    await metrics.sampleOnce();
    cpu = 15e9; // 15 s of CPU in 10 s: one and a half cores
    advance(10_000);
    await metrics.sampleOnce();
    expect(sent).toHaveLength(2);
    const [first, second] = sent as Extract<AgentMessage, { type: "metrics" }>[];
    expect(first!.instances.map((i) => [i.instance_id, i.cpu_percent, i.memory_used_mib, i.gpus.map((g) => g.index)])).toEqual([
      [A, null, 2048, [0, 2]],
      [B, null, 2048, [1]],
    ]);
    expect(second!.instances.map((i) => i.cpu_percent)).toEqual([150, 75]);
    expect([first, second].map((message) => message!.instances.map((i) => i.cpu_seconds))).toEqual([[0, 0], [15, 7.5]]);
  });

  it("sends nothing while no container runs, and skips a sample the engine does not answer, saying why", async () => {
    let answer: () => Promise<ContainerUsage[]> = async () => [];
    const { metrics, sent, logs } = sampler(() => answer());
    expect(await metrics.sampleOnce()).toBeNull();
    answer = async () => {
      throw new Error("engine gone");
    };
    expect(await metrics.sampleOnce()).toBeNull();
    expect(sent).toEqual([]);
    expect(JSON.parse(logs[0]!)).toMatchObject({ level: "warn", msg: "container usage not readable; sample skipped", error: "engine gone" });
  });

  it("leaves out a container whose id is not an instance's rather than lose the whole message", async () => {
    const { metrics, sent } = sampler(async () => [container("not-an-instance", [0], 0), container(A, [1], 0)]);
    await metrics.sampleOnce();
    expect((sent[0] as Extract<AgentMessage, { type: "metrics" }>).instances.map((i) => i.instance_id)).toEqual([A]);
  });

  it("drives a synthetic GPU from its container's request rate: idle without requests, busy with them, empty when nobody holds it", async () => {
    let served = 0;
    const { metrics, sent, advance } = sampler(async () => [container(A, [0], 0, served)]);
    await metrics.sampleOnce();
    advance(10_000);
    await metrics.sampleOnce();
    served = 90; // 9 requests a second
    advance(10_000);
    await metrics.sampleOnce();
    const gpu = (i: number) => (sent[i] as Extract<AgentMessage, { type: "metrics" }>).instances[0]!.gpus[0]!;
    expect(gpu(1)).toEqual(syntheticSample(GPUS[0]!, 0));
    expect(gpu(1)).toMatchObject({ util_percent: 0, memory_used_mib: 12282, power_w: 27, temperature_c: 30 });
    expect(gpu(2)).toEqual(syntheticSample(GPUS[0]!, 0.9));
    expect(gpu(2)).toMatchObject({ util_percent: 90, memory_used_mib: 21125, power_w: 367.2, temperature_c: 71 });
    expect(new SyntheticGpuLoad(GPUS).read([], 0)[1]).toMatchObject({ util_percent: 0, memory_used_mib: 0 });
    expect(loadOf(1)).toBe(0.5);
  });
});
