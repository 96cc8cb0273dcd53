// Starts and stops baseline (a), the minimal upstream (minimal-server.ts), as a child process, and
// says where it listens.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";

export interface MinimalServer {
  port: number;
  pid: number;
  stop(): Promise<void>;
}

export async function startMinimalServer(): Promise<MinimalServer> {
  const child = spawn(process.execPath, [new URL("./minimal-server.ts", import.meta.url).pathname], { stdio: ["ignore", "pipe", "inherit"] });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    await exited;
  };
  const lines = createInterface({ input: child.stdout! });
  const [first] = (await Promise.race([once(lines, "line"), once(child, "exit").then(() => [""])])) as string[];
  lines.close();
  const port = Number(first);
  if (!Number.isInteger(port) || port <= 0) {
    await stop();
    throw new Error("the minimal server did not start");
  }
  return { port, pid: child.pid!, stop };
}
