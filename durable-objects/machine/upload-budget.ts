// What the MachineDO may have sent to the agent that the agent has not yet handed on: request bodies
// and clients' WebSocket messages on their way to upstreams. Each stream's window (4 MiB) bounds one
// stream, but an instance's 100 uploads to a server that stopped reading were 400 MiB on the way in
// principle: in the host's sockets and the agent, one process for every tenant on the host, and,
// while the host's link is slower than the clients sending, in this object's socket to the agent,
// which every tenant's streams share. So what is out is counted against an unacknowledged budget
// (protocol/mux/unacknowledged-budget.ts: the limits, the share and who goes first), the mirror of
// the agent's own (host-agent/proxy/send-budget.ts), with smaller limits: what waits here shares the
// 128 MB with what the agent sends, which its budget bounds at 64 MiB.
//
// The agent returns no credit for a stream it is done with, so a stream is forgotten as it finishes
// here: by then the agent has ended it too (it answered, or was told to abort or close).
//
// The MachineDO alone knows what it sent and what came back, so it is the authority.
import { UnacknowledgedBudget, type Spender } from "../../protocol/index.ts";

/** Everything unacknowledged on the connection. */
export const CONNECTION_UPLOAD_BYTES = 32 * 1024 * 1024;
/** One instance's streams together, at most: three full windows. */
export const INSTANCE_UPLOAD_BYTES = 12 * 1024 * 1024;
/** One instance's streams together, before only streams just starting may send: two full windows. */
export const INSTANCE_UPLOAD_SHARE_BYTES = 8 * 1024 * 1024;
/** What a stream may have out past its instance's share: more than the agent's credit batch (512 KiB). */
export const UPLOAD_START_BYTES = 1024 * 1024;

export class UploadBudget {
  readonly #budget = new UnacknowledgedBudget({
    connection: CONNECTION_UPLOAD_BYTES, instance: INSTANCE_UPLOAD_BYTES, instanceShare: INSTANCE_UPLOAD_SHARE_BYTES, streamStart: UPLOAD_START_BYTES,
  });

  /** The count of a stream that carries traffic of `instanceId`. */
  allowanceFor(instanceId: string): UploadAllowance {
    return new UploadAllowance(this.#budget, this.#budget.spender(instanceId));
  }

  /** Unacknowledged bytes: on the whole connection, or of one instance's streams. */
  unacknowledged(instanceId?: string): number {
    return this.#budget.unacknowledged(instanceId);
  }
}

/** One stream's part of the budget, until it is released. */
export class UploadAllowance {
  readonly #budget: UnacknowledgedBudget;
  readonly #spender: Spender;
  #released = false;
  #waiting: (() => void)[] = [];

  constructor(budget: UnacknowledgedBudget, spender: Spender) {
    this.#budget = budget;
    this.#spender = spender;
  }

  /** Whether the stream must wait before it sends more to the agent. */
  get held(): boolean {
    return !this.#released && this.#budget.held(this.#spender);
  }

  sent(bytes: number): void {
    if (!this.#released) this.#budget.change(this.#spender, bytes);
  }

  /** The agent handed on `bytes` of the stream's data (its `window` frame). */
  acknowledged(bytes: number): void {
    if (!this.#released) this.#budget.change(this.#spender, -Math.min(bytes, this.#spender.bytes));
  }

  /** Calls back once the stream may send again, or is released. */
  whenRoom(callback: () => void): void {
    this.#waiting.push(callback);
    if (this.#waiting.length === 1) this.#listen();
  }

  /** The stream finished: what it had out is forgotten, and whatever waited for room goes on (to find it finished). */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#budget.change(this.#spender, -this.#spender.bytes);
    this.#run();
  }

  #listen(): void {
    this.#budget.whenRoom(() => {
      if (this.#released) return;
      if (this.held) this.#listen();
      else this.#run();
    });
  }

  #run(): void {
    for (const callback of this.#waiting.splice(0)) callback();
  }
}
