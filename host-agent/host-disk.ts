// The file system instances' disks live on, as the hello reports it: placement promises instances no
// more disk_gb together than its size (durable-objects/fleet/placement.ts).
import { statfs } from "node:fs/promises";
import type { HostDisk } from "../protocol/messages.ts";

/** The size and free bytes of the file system `dir` is on; null when the agent cannot see it (from inside a container, say). */
export async function diskOf(dir: string): Promise<HostDisk | null> {
  try {
    const disk = await statfs(dir);
    return { total_bytes: disk.blocks * disk.bsize, free_bytes: disk.bavail * disk.bsize };
  } catch {
    return null;
  }
}
