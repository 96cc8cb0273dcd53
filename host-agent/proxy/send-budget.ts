// What the agent may have sent on its connection that the MachineDO has not yet handed on. Each
// stream's own window (4 MiB) bounds one stream, but the MachineDO holds what it was sent until the
// client takes it, one object carries every stream of every tenant on this host, and it has 128 MB:
// 32 downloads whose clients do not read would reset it and drop everybody's streams. So the
// connection as a whole, and each instance within it, has a budget of unacknowledged bytes; a stream
// over it waits as it does for a congested socket (StreamTransport.congested), and goes on as the
// MachineDO returns credit (`window`) or a stream ends. One instance cannot take more than its share,
// so streams of other instances keep flowing while its clients sit.
//
// The agent alone knows what it sent and what came back, so it is the authority; the MachineDO's
// per-stream window check (bridge-stream.ts) still stands behind it.
import type { StreamTransport } from "./stream-transport.ts";

/** Everything unacknowledged on the connection: what the MachineDO may hold of the agent's data. */
export const CONNECTION_BUDGET_BYTES = 48 * 1024 * 1024;
/** One instance's streams together: four windows, a third of the connection. */
export const INSTANCE_BUDGET_BYTES = 16 * 1024 * 1024;

interface Spender {
  instanceId: string;
  bytes: number;
}

/** A stream's transport, counted against the budget until `release` (the stream ended). */
export interface BudgetedTransport extends StreamTransport {
  release(): void;
}

export class SendBudget {
  readonly #transport: StreamTransport;
  readonly #streams = new Map<number, Spender>();
  readonly #perInstance = new Map<string, number>();
  #total = 0;
  #waiters: (() => void)[] = [];
  #waking = false;

  constructor(transport: StreamTransport) {
    this.#transport = transport;
  }

  /** Unacknowledged bytes: on the whole connection, or of one instance's streams. */
  unacknowledged(instanceId?: string): number {
    return instanceId === undefined ? this.#total : (this.#perInstance.get(instanceId) ?? 0);
  }

  /** The transport of stream `id`, which carries traffic of `instanceId`. */
  transportFor(id: number, instanceId: string): BudgetedTransport {
    const spender: Spender = { instanceId, bytes: 0 };
    this.#streams.set(id, spender);
    const transport = this.#transport;
    return {
      send: (message) => transport.send(message),
      sendData: (kind, stream, payload) => {
        transport.sendData(kind, stream, payload);
        this.#change(spender, payload.byteLength);
      },
      congested: () => transport.congested() || this.#spent(instanceId),
      whenUncongested: (callback) => {
        if (transport.congested()) transport.whenUncongested(callback);
        else this.#waiters.push(callback);
      },
      release: () => {
        if (this.#streams.get(id) === spender) this.#streams.delete(id);
        this.#change(spender, -spender.bytes);
      },
    };
  }

  /** The MachineDO handed on `bytes` of stream `id`'s data (its `window` frame). */
  acknowledged(id: number, bytes: number): void {
    const spender = this.#streams.get(id);
    if (spender) this.#change(spender, -Math.min(bytes, spender.bytes));
  }

  #spent(instanceId: string): boolean {
    return this.#total >= CONNECTION_BUDGET_BYTES || (this.#perInstance.get(instanceId) ?? 0) >= INSTANCE_BUDGET_BYTES;
  }

  #change(spender: Spender, bytes: number): void {
    if (bytes === 0) return;
    spender.bytes += bytes;
    this.#total += bytes;
    const instance = (this.#perInstance.get(spender.instanceId) ?? 0) + bytes;
    if (instance > 0) this.#perInstance.set(spender.instanceId, instance);
    else this.#perInstance.delete(spender.instanceId);
    if (bytes < 0 && this.#waiters.length > 0 && !this.#waking) {
      // After the change that freed room is done (a stream may be ending): each waiter then checks
      // again for itself, and waits again if its own instance is still over.
      this.#waking = true;
      queueMicrotask(() => {
        this.#waking = false;
        for (const waiter of this.#waiters.splice(0)) waiter();
      });
    }
  }
}
