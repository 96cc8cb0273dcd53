// Agent restarts during the soak: SIGTERM (a service restart) or SIGKILL (a crash) of one host agent,
// started again at once; the restart's window lasts until its machine serves again: online on a new
// session and, for dev-1, the proxied instance answering.
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import type { Stack } from "../../scripts/dev/stack.ts";
import type { RestartWindow } from "./soak-outcomes.ts";

const RECOVERY_LIMIT_MS = 120_000;

export interface RestartPlanEntry {
  atMs: number;
  machine: string;
  how: RestartWindow["how"];
}

/**
 * Every few minutes (3, or a third of a shorter run, so any run sees at least two): dev-1 and dev-2
 * by turns, each crashing and being restarted by turns.
 */
export function restartPlan(durationMs: number): RestartPlanEntry[] {
  const everyMs = Math.min(180_000, durationMs / 3);
  const plan: RestartPlanEntry[] = [];
  for (let i = 0; (i + 1) * everyMs < durationMs; i++) {
    plan.push({ atMs: (i + 1) * everyMs, machine: i % 2 === 0 ? "dev-1" : "dev-2", how: (i + (i >> 1)) % 2 === 0 ? "SIGKILL" : "SIGTERM" });
  }
  return plan;
}

export class AgentRestarts {
  readonly windows: RestartWindow[] = [];
  private readonly stack: Stack;
  /** Whether the machine's instance (if the soak has one there) answers through the proxy. */
  private readonly serves: (machine: string) => Promise<boolean>;

  constructor(stack: Stack, serves: (machine: string) => Promise<boolean>) {
    this.stack = stack;
    this.serves = serves;
  }

  async restart(machine: string, how: RestartWindow["how"]): Promise<void> {
    const window: RestartWindow = { machine, how, startMs: Date.now(), endMs: null };
    this.windows.push(window);
    if (how === "SIGTERM") {
      await this.stack.stopAgent(machine);
    } else {
      const agent = this.stack.agents.get(machine)!.process;
      const exited = once(agent, "exit");
      agent.kill("SIGKILL");
      await exited;
    }
    this.stack.startAgent(machine);
    if (await this.recovered(machine, window.startMs)) window.endMs = Date.now();
  }

  /** Online on a session that began after the restart, and serving. */
  private async recovered(machine: string, sinceMs: number): Promise<boolean> {
    const deadline = Date.now() + RECOVERY_LIMIT_MS;
    while (Date.now() < deadline) {
      if ((await this.onlineSince(machine, sinceMs)) && (await this.serves(machine))) return true;
      await sleep(100);
    }
    return false;
  }

  private async onlineSince(machine: string, sinceMs: number): Promise<boolean> {
    const response = await fetch(`${this.stack.baseUrl}/admin/v1/machines`, { headers: { authorization: `Bearer ${this.stack.adminToken}` } }).catch(() => null);
    if (!response?.ok) return false;
    const { items } = (await response.json()) as { items: { id: number; online: boolean; last_seen_at: string | null }[] };
    const listed = items.find((m) => m.id === this.stack.setup.machines[machine]?.id);
    return listed?.online === true && Date.parse(listed.last_seen_at ?? "") >= sinceMs;
  }
}
