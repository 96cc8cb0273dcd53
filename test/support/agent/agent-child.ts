// Runs the real host agent as a child process for tests, collecting its JSON logs: the dev agent's
// entry (host-agent/dev/dev-main.ts), which takes the stand-ins (--runtime local, --gpus) tests need.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { NODE_BINARY } from "./node-binary.ts";
import { waitUntil } from "./wait-until.ts";

const MAIN_FILE = fileURLToPath(new URL("../../../host-agent/dev/dev-main.ts", import.meta.url));

export type LogLine = { t: string; level: string; msg: string } & Record<string, unknown>;

export interface AgentChild {
  child: ChildProcess;
  logs: LogLine[];
  stderr(): string;
  waitForLog(msg: string, match?: (line: LogLine) => boolean): Promise<LogLine>;
  /** The exit code, once the process has exited by itself. */
  exited: Promise<number | null>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

export function startAgentChild(args: string[], env: Record<string, string> = {}): AgentChild {
  const child = spawn(NODE_BINARY, [MAIN_FILE, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const logs: LogLine[] = [];
  let stderr = "";
  createInterface({ input: child.stdout! }).on("line", (line) => logs.push(JSON.parse(line) as LogLine));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, "exit").then(([code]) => code as number | null);
  return {
    child,
    logs,
    stderr: () => stderr,
    exited,
    waitForLog: (msg, match = () => true) => waitUntil(() => logs.find((l) => l.msg === msg && match(l)), `agent log "${msg}"`),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}
