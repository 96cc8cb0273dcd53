// Doctor's report of how this host's memory and CPUs are shared between instances: the host's
// reserve and each GPU's share (resource-share.ts), the figures every container's limits come from.
import { hostReserve, resourceShare, type HostResources } from "../../protocol/resource-share.ts";
import { ok, type CheckResult } from "./check.ts";

const GIB = 1024 ** 3;
const NANO = 1_000_000_000;

export function checkResourceSplit(host: HostResources, gpus: number): CheckResult {
  const reserve = hostReserve(host);
  const perGpu = resourceShare(host, gpus, 1);
  const memory = (bytes: number) => `${(bytes / GIB).toFixed(1)} GiB`;
  const cpus = (nano: number) => `${Number((nano / NANO).toFixed(2))} CPUs`;
  return ok(
    "resources",
    `${memory(host.memory_bytes)} and ${host.cpus} CPUs; the host keeps ${memory(reserve.memory_bytes)} and ${cpus(reserve.nano_cpus)}; ` +
      `each of its ${Math.max(1, gpus)} GPU(s) brings an instance ${memory(perGpu.memory_bytes)} (no swap) and ${cpus(perGpu.nano_cpus)}`,
  );
}
