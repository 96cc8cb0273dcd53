// Runs the dev container server as a real child process on free ports (below the ephemeral range: it binds them only once started), for tests.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { freeLatePort } from "../../../host-agent/dev/free-port.ts";
import { NODE_BINARY } from "./node-binary.ts";
import { healthAnswers, waitUntil } from "./wait-until.ts";

export const DEV_SERVER_FILE = fileURLToPath(new URL("../../../host-agent/dev/container/server.ts", import.meta.url));

export interface DevServerChild {
  ports: number[];
  child: ChildProcess;
  /** What it wrote so far on each stream. */
  output: { stdout: string; stderr: string };
  stop(): Promise<void>;
}

export async function startDevServerChild(containerPorts: number[], env: Record<string, string> = {}, waitReady = true): Promise<DevServerChild> {
  const ports: number[] = [];
  for (let i = 0; i < containerPorts.length; i++) ports.push(await freeLatePort(new Set(ports)));
  const child = spawn(NODE_BINARY, [DEV_SERVER_FILE], {
    env: {
      ...process.env,
      DEV_LISTEN: containerPorts.map((p, i) => `${p}:${ports[i]}`).join(","),
      DEV_READY_DELAY_MS: "0",
      DEV_MODEL: "Qwen/Qwen2.5-0.5B-Instruct",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output = { stdout: "", stderr: "" };
  child.stdout!.on("data", (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output.stderr += chunk.toString()));
  if (waitReady) for (const port of ports) await waitUntil(async () => ((await healthAnswers(port)) ? true : undefined), `dev server on ${port}`);
  return {
    ports,
    child,
    output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      await once(child, "exit");
    },
  };
}
