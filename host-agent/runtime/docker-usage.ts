// What the engine says each running managed container uses: one `stats` reading each (one-shot: the
// counters only, the agent makes the rates), and the GPUs the container was created with, read from
// its inspect once per container.
import type Docker from "dockerode";
import { INSTANCE_LABEL, MANAGED_LABEL } from "./docker-container-config.ts";
import { statusOf } from "./docker-pull.ts";
import type { ContainerUsage } from "./runtime.ts";

export class DockerUsage {
  readonly #docker: Docker;
  /** The GPU indices of each container by its engine id: fixed for a container's life. */
  readonly #gpusById = new Map<string, number[]>();

  readonly #scope: string;

  constructor(docker: Docker, scope: string) {
    this.#docker = docker;
    this.#scope = scope;
  }

  async read(): Promise<ContainerUsage[]> {
    const running = await this.#docker.listContainers({ filters: { label: [`${MANAGED_LABEL}=${this.#scope}`], status: ["running"] } });
    for (const id of this.#gpusById.keys()) if (!running.some((c) => c.Id === id)) this.#gpusById.delete(id);
    const read = await Promise.all(running.map((c) => this.#readOne(c.Id, c.Labels[INSTANCE_LABEL] ?? "")));
    return read.filter((usage): usage is ContainerUsage => usage !== null);
  }

  /** Null for a container that stopped since it was listed. */
  async #readOne(id: string, instanceId: string): Promise<ContainerUsage | null> {
    const container = this.#docker.getContainer(id);
    try {
      const [stats, gpuIndices] = await Promise.all([container.stats({ stream: false, "one-shot": true }), this.#gpuIndices(container)]);
      const memory = stats.memory_stats as { usage?: number; stats?: { inactive_file?: number; total_inactive_file?: number } } | undefined;
      // What the kernel can drop at once (the page cache of files read) is not the container's: the docker CLI subtracts it too.
      const cache = memory?.stats?.inactive_file ?? memory?.stats?.total_inactive_file ?? 0;
      return {
        instanceId,
        cpuNs: stats.cpu_stats?.cpu_usage?.total_usage ?? null,
        memoryBytes: memory?.usage === undefined ? null : Math.max(0, memory.usage - cache),
        gpuIndices,
        requestsServed: null,
      };
    } catch (error) {
      if (statusOf(error) === 404 || statusOf(error) === 409) return null;
      throw error;
    }
  }

  async #gpuIndices(container: Docker.Container): Promise<number[]> {
    const known = this.#gpusById.get(container.id);
    if (known) return known;
    const info = await container.inspect();
    const indices = (info.HostConfig.DeviceRequests ?? []).flatMap((request) => request.DeviceIDs ?? []).map(Number).filter(Number.isInteger);
    this.#gpusById.set(container.id, indices);
    return indices;
  }
}
