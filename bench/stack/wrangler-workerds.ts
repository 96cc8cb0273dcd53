// wrangler dev's two workerd processes, found in its process group: the front, which listens on the
// stack's port, and the Worker's own, which runs the Worker and its Durable Objects on its main thread.
import { listProcesses } from "./procfs.ts";

export function wranglerWorkerds(wranglerGroup: number, port: number): { front: number | null; worker: number | null } {
  const workerd = listProcesses().filter((p) => p.pgid === wranglerGroup && p.comm === "workerd");
  const front = workerd.find((p) => new RegExp(`entry=127\\.0\\.0\\.1:${port}(\\s|$)`).test(p.cmdline));
  return { front: front?.pid ?? null, worker: workerd.find((p) => p !== front)?.pid ?? null };
}
