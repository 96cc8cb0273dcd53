// What GET /v1/metrics exports, in Prometheus' base units: the account's money, and per running
// instance its GPUs (one series per GPU index) and its container, from its host's last sample (a
// sample at most a minute old; an instance without one shows only gpu_rental_instance_running).
// Every instance series carries `instance_id` and `label` (the instance's name, "" when none).
import type { CurrentUsage, CurrentUsageAnswer } from "../../../durable-objects/contracts/current-usage.ts";
import type { MetricsInstance, MetricsSources } from "../../../durable-objects/contracts/metrics-export.ts";
import type { Family, Sample } from "./exposition.ts";

const MIB = 1024 * 1024;

const bytesOf = (mib: number | null) => (mib === null ? null : Math.round(mib * MIB));
const ratioOf = (percent: number | null) => (percent === null ? null : percent / 100);

type Sampled = { instance: MetricsInstance; usage: CurrentUsage };

const instanceLabels = (instance: MetricsInstance) => ({ instance_id: instance.id, label: instance.label });

function gpuFamily(sampled: Sampled[], name: string, help: string, value: (gpu: CurrentUsage["gpus"][number]) => number | null): Family {
  const samples = sampled.flatMap(({ instance, usage }): Sample[] =>
    usage.gpus.map((gpu) => ({ labels: { ...instanceLabels(instance), gpu: String(gpu.index) }, value: value(gpu) })));
  return { name, help, type: "gauge", samples };
}

function containerFamily(sampled: Sampled[], name: string, help: string, type: Family["type"], value: (usage: CurrentUsage) => number | null): Family {
  return { name, help, type, samples: sampled.map(({ instance, usage }) => ({ labels: instanceLabels(instance), value: value(usage) })) };
}

/** The families for `sources`, each instance's figures from `usage` (the answers of its machine). */
export function accountFamilies(sources: MetricsSources, usage: CurrentUsageAnswer): Family[] {
  const sampled = sources.instances.flatMap((instance): Sampled[] => {
    const current = usage[instance.id];
    return current ? [{ instance, usage: current }] : [];
  });
  return [
    { name: "gpu_rental_account_balance_micros", help: "The account's balance in micro-dollars, settled up to now", type: "gauge", samples: [{ labels: {}, value: sources.balance_micros }] },
    {
      name: "gpu_rental_account_month_spend_micros", help: "Micro-dollars charged this UTC calendar month for instances and storage", type: "gauge",
      samples: [{ labels: {}, value: sources.month_spend_micros }],
    },
    {
      name: "gpu_rental_instance_running", help: "Each running instance (always 1); its GPU and container series are left out while its host has no current sample", type: "gauge",
      samples: sources.instances.map((instance) => ({ labels: { ...instanceLabels(instance), gpu_model: instance.gpu_model }, value: 1 })),
    },
    gpuFamily(sampled, "gpu_rental_gpu_utilization_ratio", "Fraction of the last sample period a kernel ran on the GPU (0 to 1)", (gpu) => ratioOf(gpu.util_percent)),
    gpuFamily(sampled, "gpu_rental_gpu_memory_used_bytes", "GPU memory in use", (gpu) => bytesOf(gpu.memory_used_mib)),
    gpuFamily(sampled, "gpu_rental_gpu_memory_total_bytes", "The GPU's memory", (gpu) => bytesOf(gpu.memory_total_mib)),
    gpuFamily(sampled, "gpu_rental_gpu_power_watts", "Board power draw", (gpu) => gpu.power_w),
    gpuFamily(sampled, "gpu_rental_gpu_temperature_celsius", "GPU temperature", (gpu) => gpu.temperature_c),
    containerFamily(sampled, "gpu_rental_container_cpu_seconds_total", "CPU time the container used since it started", "counter", (u) => u.cpu_seconds),
    containerFamily(sampled, "gpu_rental_container_memory_bytes", "Memory the container uses, less the page cache it could drop at once", "gauge", (u) => bytesOf(u.memory_used_mib)),
  ];
}
