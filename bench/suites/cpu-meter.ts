// CPU time each hop spends during a measurement: the bench client itself, the minimal server, nginx,
// the two workerd processes, the agent and the container, read from /proc before and after.
import { cpuMs, listProcesses } from "../stack/procfs.ts";
import type { SuiteContext } from "./suite-context.ts";

export const HOPS = ["client", "minimal server", "nginx", "workerd front", "workerd worker", "agent", "container"] as const;
export type Hop = (typeof HOPS)[number];

export type CpuSnapshot = Record<Hop, number>;

export function cpuSnapshot(ctx: SuiteContext): CpuSnapshot {
  const pids = ctx.stack.pids();
  const usage = process.cpuUsage();
  const nginxPids = ctx.nginx ? listProcesses().filter((p) => p.pgid === ctx.nginx!.pgid).map((p) => p.pid) : [];
  return {
    client: (usage.user + usage.system) / 1000,
    "minimal server": cpuMs(ctx.minimal.pid),
    nginx: nginxPids.reduce((sum, pid) => sum + cpuMs(pid), 0),
    "workerd front": pids.workerdFront === null ? 0 : cpuMs(pids.workerdFront),
    "workerd worker": pids.workerdWorker === null ? 0 : cpuMs(pids.workerdWorker),
    agent: cpuMs(pids.agent),
    container: cpuMs(pids.container),
  };
}

export function cpuSpent(before: CpuSnapshot, after: CpuSnapshot): CpuSnapshot {
  return Object.fromEntries(HOPS.map((hop) => [hop, Math.max(0, after[hop] - before[hop])])) as CpuSnapshot;
}
