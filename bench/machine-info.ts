// What machine a run happened on: numbers mean little without it (2 shared cores vs a workstation).
import { availableParallelism, cpus, loadavg, release, totalmem, type } from "node:os";
import type { MachineInfo } from "./results-model.ts";

export function machineInfo(now = new Date()): MachineInfo {
  return {
    cpu_model: cpus()[0]?.model.trim() ?? "unknown",
    cores: availableParallelism(),
    memory_gb: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node_version: process.versions.node,
    os: `${type()} ${release()}`,
    load_average_1m: loadavg()[0] ?? 0,
    date: now.toISOString(),
  };
}
