// Follows the engine's `die` events for the agent's containers, so a container that exits on its own
// is reported; the stream is reopened if the engine drops it.
import type Docker from "dockerode";
import { INSTANCE_LABEL, MANAGED_LABEL } from "./docker-container-config.ts";

export interface DieEvent {
  instanceId: string;
  exitCode: string;
  /** When the container died, in ms since the epoch (0 when the engine did not say). */
  atMs: number;
  /** How far `atMs` may be early: engines without nanosecond times give whole seconds. */
  uncertaintyMs: number;
}

interface EngineEvent {
  Action?: string;
  status?: string;
  time?: number;
  timeNano?: number;
  Actor?: { Attributes?: Record<string, string> };
}

const REOPEN_DELAY_MS = 1_000;

export function followDieEvents(docker: Docker, scope: string, onDie: (event: DieEvent) => void): { close(): void } {
  let closed = false;
  let stream: NodeJS.ReadableStream | null = null;
  const open = async () => {
    try {
      // Filtered to `die` here rather than with an `event` filter, which podman 4's API mishandles.
      stream = await docker.getEvents({ filters: { type: ["container"], label: [`${MANAGED_LABEL}=${scope}`] } });
    } catch {
      if (!closed) setTimeout(open, REOPEN_DELAY_MS).unref();
      return;
    }
    if (closed) return destroy(stream);
    let pending = "";
    stream.on("data", (chunk: Buffer) => {
      pending += chunk.toString("utf8");
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) parseDie(line, onDie);
    });
    stream.on("error", () => {});
    stream.on("close", () => {
      if (!closed) setTimeout(open, REOPEN_DELAY_MS).unref();
    });
  };
  void open();
  return {
    close() {
      closed = true;
      if (stream) destroy(stream);
    },
  };
}

function parseDie(line: string, onDie: (event: DieEvent) => void): void {
  if (!line.trim()) return;
  let event: EngineEvent;
  try {
    event = JSON.parse(line) as EngineEvent;
  } catch {
    return;
  }
  const attributes = event.Actor?.Attributes ?? {};
  const instanceId = attributes[INSTANCE_LABEL];
  if ((event.Action ?? event.status) !== "die" || !instanceId) return;
  const atMs = event.timeNano ? Math.floor(event.timeNano / 1e6) : (event.time ?? 0) * 1000;
  onDie({ instanceId, exitCode: attributes.exitCode ?? "", atMs, uncertaintyMs: event.timeNano ? 1 : 1000 });
}

function destroy(stream: NodeJS.ReadableStream): void {
  (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
}
