// Finds the host port the local runtime mapped to an instance's container port (baseline (a) talks
// to it directly). The runtime keeps that map in memory only, so we read it from the container
// process itself: the one whose working directory is the instance's data folder, via its DEV_LISTEN.
import { join } from "node:path";
import { listProcesses, processCwd, processEnv } from "./procfs.ts";

export interface ContainerProcess {
  pid: number;
  hostPort: number;
}

export function findContainer(agentStateDir: string, instanceId: string, containerPort: number): ContainerProcess | null {
  const dataDir = join(agentStateDir, "containers", instanceId, "data");
  for (const entry of listProcesses()) {
    if (!entry.cmdline.includes("dev/container/server.ts") || processCwd(entry.pid) !== dataDir) continue;
    const hostPort = parseListen(processEnv(entry.pid).DEV_LISTEN ?? "").get(containerPort);
    if (hostPort !== undefined) return { pid: entry.pid, hostPort };
  }
  return null;
}

/** `8000:41234,8888:41235` → container port → host port. */
export function parseListen(text: string): Map<number, number> {
  const map = new Map<number, number>();
  for (const pair of text.split(",")) {
    const [container, host] = pair.split(":").map(Number);
    if (Number.isInteger(container) && Number.isInteger(host)) map.set(container!, host!);
  }
  return map;
}
