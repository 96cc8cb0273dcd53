// Which HTTP ports of an instance answer their readiness path, kept in the instance row's
// `readiness` column as {"ready": {"<port>": "<iso: ready since>"}, "announced": [<port>]}. The
// AccountDO is the authority, from its MachineDO's reports of what the agent's probes find.
// Readiness belongs to one run of the container (from `running` until it stops, fails or is
// destroyed): a run starts with no port ready and none announced, and the first time a port becomes
// ready in it an event says so. A host that goes offline leaves every port not ready until it says
// otherwise, which it does again in the same run without a second event. Pure: callers write it.
import type { PortSpec } from "../../../core/port-spec.ts";

interface Readiness {
  ready: Record<string, string>;
  announced: number[];
}

/** A port as every instance object shows it. */
export type InstancePort = PortSpec & { ready: boolean; ready_at: string | null };

/** The column's value for a run that has just begun (or never has): nothing ready, nothing announced. */
export const NO_READINESS = "{}";

export function instancePorts(ports: PortSpec[], readinessJson: string): InstancePort[] {
  const { ready } = parse(readinessJson);
  return ports.map((port) => ({ ...port, ready: String(port.port) in ready, ready_at: ready[String(port.port)] ?? null }));
}

export interface ReadinessChange {
  readiness: string;
  /** Event messages, one per port ready for the first time in this run. */
  events: string[];
  /** The same ports, for the `instance.port_ready` webhook event. */
  firstReady: { port: number; api: string; after_s: number }[];
}

/**
 * The agent found exactly `readyPorts` answering at `at` (ISO) in a run that reached `running` at
 * `startedAt`: ports ready before keep their time, new ones get `at`; ports no longer answering drop.
 */
export function withReadyPorts(ports: PortSpec[], readinessJson: string, readyPorts: number[], startedAt: string | null, at: string): ReadinessChange {
  const before = parse(readinessJson);
  const now = new Set(readyPorts);
  const ready: Record<string, string> = {};
  const announced = new Set(before.announced);
  const events: string[] = [];
  const firstReady: ReadinessChange["firstReady"] = [];
  for (const port of ports.filter((p) => p.kind === "http" && now.has(p.port))) {
    ready[String(port.port)] = before.ready[String(port.port)] ?? at;
    if (announced.has(port.port)) continue;
    announced.add(port.port);
    const afterS = secondsBetween(startedAt ?? at, at);
    events.push(`port ${port.port} (${port.api}) ready after ${afterS} s`);
    firstReady.push({ port: port.port, api: port.api, after_s: afterS });
  }
  return { readiness: serialize({ ready, announced: [...announced].sort((a, b) => a - b) }), events, firstReady };
}

/** The host went offline: no port is known to answer; what was announced in this run stays announced. */
export function withoutReadyPorts(readinessJson: string): string {
  return serialize({ ready: {}, announced: parse(readinessJson).announced });
}

function secondsBetween(from: string, to: string): number {
  return Math.max(0, Math.round((Date.parse(to) - Date.parse(from)) / 1000));
}

function parse(json: string): Readiness {
  const value = JSON.parse(json) as Partial<Readiness>;
  return { ready: value.ready ?? {}, announced: value.announced ?? [] };
}

function serialize(readiness: Readiness): string {
  return Object.keys(readiness.ready).length === 0 && readiness.announced.length === 0 ? NO_READINESS : JSON.stringify(readiness);
}
