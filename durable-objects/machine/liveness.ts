// Whether the agent is alive: heard from (its hello, then a heartbeat every third of the timeout)
// within HEARTBEAT_TIMEOUT_MS. The alarm takes a silent machine offline at its last sign of life plus
// the timeout. Liveness is about real time passing: the platform's clock.
import { log } from "../../core/log.ts";
import type { Env } from "../../core/env.ts";
import type { AlarmCapability } from "../outbox/single-alarm.ts";
import type { MachineRecord } from "./machine-record.ts";

const DEFAULT_TIMEOUT_MS = 15_000;

export class Liveness implements AlarmCapability {
  readonly timeoutMs: number;
  private readonly record: MachineRecord;
  private readonly onTimeout: () => void;

  constructor(env: Env, record: MachineRecord, onTimeout: () => void) {
    this.timeoutMs = Number(env.HEARTBEAT_TIMEOUT_MS ?? DEFAULT_TIMEOUT_MS) || DEFAULT_TIMEOUT_MS;
    this.record = record;
    this.onTimeout = onTimeout;
  }

  /** The heartbeat period the welcome asks of the agent: three heartbeats per timeout. */
  get heartbeatMs(): number {
    return Math.max(100, Math.floor(this.timeoutMs / 3));
  }

  heard(): void {
    this.record.markSeen(Date.now());
  }

  nextAlarmMs(): number | null {
    const machine = this.record.read();
    return machine?.online === 1 && machine.last_seen_ms !== null ? machine.last_seen_ms + this.timeoutMs : null;
  }

  onAlarm(): void {
    const machine = this.record.read();
    if (machine?.online === 1 && machine.last_seen_ms !== null && Date.now() - machine.last_seen_ms >= this.timeoutMs) {
      log("warn", "agent heartbeat timed out", { machine: machine.id });
      this.onTimeout();
    }
  }
}
