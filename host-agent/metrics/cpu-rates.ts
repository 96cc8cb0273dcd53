// CPU percentages from the engines' cumulative CPU time: the time used between two readings over
// the time between them, in percent of one core (as `docker stats` shows it: 200 is two cores busy).
export class CpuRates {
  readonly #last = new Map<string, { cpuNs: number; atMs: number }>();

  /** Null for a container's first reading, or when its engine gives no CPU time. */
  percent(instanceId: string, cpuNs: number | null, atMs: number): number | null {
    const last = this.#last.get(instanceId);
    if (cpuNs === null) return null;
    this.#last.set(instanceId, { cpuNs, atMs });
    // A counter that went back is a new process (a restart): its first reading has no rate.
    if (!last || atMs <= last.atMs || cpuNs < last.cpuNs) return null;
    return Math.round(((cpuNs - last.cpuNs) / 1e6 / (atMs - last.atMs)) * 10_000) / 100;
  }

  /** Drops every container but `running`. */
  keepOnly(running: Set<string>): void {
    for (const instanceId of this.#last.keys()) if (!running.has(instanceId)) this.#last.delete(instanceId);
  }
}
