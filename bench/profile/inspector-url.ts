// Finds the inspector endpoints to profile: the Worker's isolate inside wrangler's workerd (one of
// the ports that process listens on serves the DevTools /json list) and an agent started with
// --inspect (it prints "Debugger listening on ws://…").
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

export async function workerInspectorUrl(workerdPid: number): Promise<string | null> {
  for (const port of listeningPorts(workerdPid)) {
    const targets = await fetch(`http://127.0.0.1:${port}/json`, { signal: AbortSignal.timeout(1000) })
      .then((r) => (r.ok ? (r.json() as Promise<{ id?: string; webSocketDebuggerUrl?: string }[]>) : []))
      // A port that is not the inspector may answer /json with a page (the Worker serves the dashboard's).
      .catch(() => []);
    const worker = Array.isArray(targets) ? targets.find((t) => t.id?.startsWith("core:user:")) : undefined;
    if (worker?.webSocketDebuggerUrl) return worker.webSocketDebuggerUrl;
  }
  return null;
}

export function nodeInspectorUrl(output: string): string | null {
  return /Debugger listening on (ws:\/\/\S+)/.exec(output)?.[1] ?? null;
}

/** TCP ports a process listens on (IPv4), from its socket inodes and /proc/net/tcp. */
export function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`, { encoding: "utf8" });
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode) inodes.add(inode);
    }
  } catch {
    return [];
  }
  const ports: number[] = [];
  for (const line of readFileSync("/proc/net/tcp", "utf8").split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/);
    // local_address is HEX_IP:HEX_PORT; state 0A is LISTEN; the inode is the tenth field.
    if (fields[3] === "0A" && inodes.has(fields[9] ?? "")) ports.push(Number.parseInt(fields[1]!.split(":")[1]!, 16));
  }
  return ports;
}
