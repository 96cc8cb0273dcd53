// Whether the agent is alive, without a write or a wake-up per heartbeat. The runtime answers each
// heartbeat frame itself (WebSocket auto-response, even while this object hibernates) and keeps the
// time of the last one per socket; the machine row keeps the time of the hello. The last sign of life
// is the later of the two, and the alarm takes the machine offline once it is HEARTBEAT_TIMEOUT_MS old.
// Liveness is about real time passing: the platform's clock.
import { log } from "../../core/log.ts";
import type { Env } from "../../core/env.ts";
import { encodeMessage } from "../../protocol/index.ts";
import type { AlarmCapability } from "../outbox/single-alarm.ts";
import type { AgentSocket } from "./agent-socket.ts";
import type { MachineRecord } from "./machine-record.ts";

const DEFAULT_TIMEOUT_MS = 15_000;
/** The agent's heartbeat as it encodes it (JSON.stringify): the runtime matches a frame's exact text. */
const HEARTBEAT = encodeMessage({ type: "heartbeat" });
const HEARTBEAT_ACK = encodeMessage({ type: "heartbeat_ack" });

export class Liveness implements AlarmCapability {
  readonly timeoutMs: number;
  private readonly ctx: DurableObjectState;
  private readonly record: MachineRecord;
  private readonly agent: AgentSocket;
  private readonly onTimeout: () => void;

  constructor(ctx: DurableObjectState, env: Env, record: MachineRecord, agent: AgentSocket, onTimeout: () => void) {
    this.timeoutMs = Number(env.HEARTBEAT_TIMEOUT_MS ?? DEFAULT_TIMEOUT_MS) || DEFAULT_TIMEOUT_MS;
    this.ctx = ctx;
    this.record = record;
    this.agent = agent;
    this.onTimeout = onTimeout;
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(HEARTBEAT, HEARTBEAT_ACK));
  }

  /** The heartbeat period the welcome asks of the agent: three heartbeats per timeout. */
  get heartbeatMs(): number {
    return Math.max(100, Math.floor(this.timeoutMs / 3));
  }

  /** The agent's last sign of life: the machine row's time or the last heartbeat answered on `socket`, whichever is later. */
  lastSeenMs(socket: WebSocket | null = this.agent.current()): number | null {
    const stored = this.record.read()?.last_seen_ms ?? null;
    const answered = socket ? (this.ctx.getWebSocketAutoResponseTimestamp(socket)?.getTime() ?? null) : null;
    if (stored === null || answered === null) return stored ?? answered;
    return Math.max(stored, answered);
  }

  /**
   * A heartbeat that reached the object, so encoded otherwise than the exact frame the runtime
   * answers (the agent always sends that one): stored and answered here, it counts the same.
   */
  heard(): void {
    this.record.markSeen(Date.now());
    this.agent.send({ type: "heartbeat_ack" });
  }

  nextAlarmMs(): number | null {
    const lastSeen = this.record.isOnline() ? this.lastSeenMs() : null;
    return lastSeen === null ? null : lastSeen + this.timeoutMs;
  }

  onAlarm(): void {
    const machine = this.record.read();
    const lastSeen = machine?.online === 1 ? this.lastSeenMs() : null;
    if (machine && lastSeen !== null && Date.now() - lastSeen >= this.timeoutMs) {
      log("warn", "agent heartbeat timed out", { machine_id: machine.id, last_seen_ms_ago: Date.now() - lastSeen });
      this.onTimeout();
    }
  }
}
