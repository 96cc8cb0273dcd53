// Readiness of running containers' HTTP ports: a GET of each port's readiness path on the
// container's published port (localhost), every `untilReadyMs` until anything below 500 answers,
// then every `whileReadyMs` while the container runs (a failed check makes the port not ready
// again). Each change of a container's set of ready ports is reported. Probing starts when a
// container runs (again) and stops when it stops.
import { request } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { HttpPort, PortReadiness } from "../protocol/messages.ts";
import type { ContainerRuntime, Endpoint } from "./runtime/runtime.ts";

export interface ProbeTiming {
  /** Between checks while a port is not ready. */
  untilReadyMs: number;
  /** Between checks once it is. */
  whileReadyMs: number;
  /** A check with no answer in this time failed. */
  timeoutMs: number;
}

/**
 * Every probe's User-Agent, so the server inside can tell a probe from use (kube-probe's way): the dev
 * container leaves probes out of the requests its synthetic GPUs follow, so an instance nobody uses
 * reads idle however often it is probed.
 */
export const PROBE_USER_AGENT = "gpu-rental-readiness-probe";

export const DEFAULT_PROBE_TIMING: ProbeTiming = { untilReadyMs: 1_000, whileReadyMs: 10_000, timeoutMs: 5_000 };

interface ProbedContainer {
  ready: Set<number>;
  stop: AbortController;
}

export class ReadinessProbes {
  readonly #runtime: Pick<ContainerRuntime, "resolvePort" | "httpPorts">;
  readonly #report: (readiness: PortReadiness) => void;
  readonly #timing: ProbeTiming;
  readonly #containers = new Map<string, ProbedContainer>();

  constructor(runtime: Pick<ContainerRuntime, "resolvePort" | "httpPorts">, report: (readiness: PortReadiness) => void, timing = DEFAULT_PROBE_TIMING) {
    this.#runtime = runtime;
    this.#report = report;
    this.#timing = timing;
  }

  /** The container runs (again): its ports are probed from scratch, none ready yet. */
  start(instanceId: string): void {
    this.stop(instanceId);
    const container: ProbedContainer = { ready: new Set(), stop: new AbortController() };
    this.#containers.set(instanceId, container);
    this.#runtime.httpPorts(instanceId).then(
      (ports) => {
        for (const port of ports) void this.#probe(instanceId, container, port);
      },
      () => this.stop(instanceId),
    );
  }

  /** The container stopped: its probes end (its readiness goes with its state). */
  stop(instanceId: string): void {
    this.#containers.get(instanceId)?.stop.abort();
    this.#containers.delete(instanceId);
  }

  /** Whether `instanceId` is being probed. */
  probing(instanceId: string): boolean {
    return this.#containers.has(instanceId);
  }

  /** Every probed container's ready ports, for the hello. */
  snapshot(): PortReadiness[] {
    return [...this.#containers].map(([instanceId, { ready }]) => ({ instance_id: instanceId, ready_ports: sorted(ready) }));
  }

  close(): void {
    for (const instanceId of [...this.#containers.keys()]) this.stop(instanceId);
  }

  async #probe(instanceId: string, container: ProbedContainer, { port, path }: HttpPort): Promise<void> {
    const { signal } = container.stop;
    while (!signal.aborted) {
      const endpoint = await this.#runtime.resolvePort(instanceId, port).catch(() => null);
      // No endpoint: the container no longer runs (its state report follows), so nothing is left to probe.
      if (endpoint === null) return this.#containers.get(instanceId) === container ? this.stop(instanceId) : undefined;
      const answered = await answersBelow500(endpoint, port, path, this.#timing.timeoutMs, signal);
      if (signal.aborted) return;
      if (answered !== container.ready.has(port)) {
        if (answered) container.ready.add(port);
        else container.ready.delete(port);
        this.#report({ instance_id: instanceId, ready_ports: sorted(container.ready) });
      }
      await sleep(answered ? this.#timing.whileReadyMs : this.#timing.untilReadyMs, undefined, { signal }).catch(() => undefined);
    }
  }
}

/** A GET of `path` with the container port as its Host, as the proxy sends it, and the probe's User-Agent: true for any status below 500. */
function answersBelow500(endpoint: Endpoint, containerPort: number, path: string, timeoutMs: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({
      host: endpoint.host, port: endpoint.port, path, method: "GET", headers: { host: `localhost:${containerPort}`, "user-agent": PROBE_USER_AGENT },
      timeout: timeoutMs, signal, agent: false,
    });
    req.on("response", (res) => {
      res.resume();
      resolve((res.statusCode ?? 500) < 500);
    });
    req.on("timeout", () => req.destroy(new Error("no answer in time")));
    req.on("error", () => resolve(false));
    req.end();
  });
}

function sorted(ports: Set<number>): number[] {
  return [...ports].sort((a, b) => a - b);
}
