// What the agent may have sent on its connection that the MachineDO has not yet handed on. Each
// stream's own window (4 MiB) bounds one stream, but the MachineDO holds what it was sent until the
// client takes it, one object carries every stream of every tenant on this host, and it has 128 MB:
// 32 downloads whose clients do not read would reset it and drop everybody's streams. So the
// connection as a whole, and each instance within it, has a limit of unacknowledged bytes; a stream
// over it waits as it does for a congested socket (StreamTransport.congested), and goes on as the
// MachineDO returns credit (`window`) or a stream ends.
//
// Within its limit an instance has a share: past it, only a stream with less than STREAM_START_BYTES
// out may send. Clients that sit on full windows (downloads paused in a browser) then hold the share,
// not the instance: its other streams still get their first megabyte out, and go on as their own
// clients read (the MachineDO returns credit every 512 KiB, within that megabyte). Streams that wait
// go first when room comes back.
//
// A stream that ended here may still be held there: a reply the agent sent whole waits in the
// MachineDO until its client reads it. A MachineDO that says in its welcome that it settles streams
// (`settles_streams`) returns all of a stream's credit when it is done with it, so an ended stream's
// bytes stay counted until then; one that does not is taken to hold nothing of an ended stream, as
// before. A stream the MachineDO ends (`abort`, `ws_close`) is forgotten at once: what was in flight
// to it is dropped there, and will never be acknowledged.
//
// The agent alone knows what it sent and what came back, so it is the authority; the MachineDO's
// per-stream window check (bridge-stream.ts) still stands behind it.
import type { StreamTransport } from "./stream-transport.ts";

/** Everything unacknowledged on the connection: the most the MachineDO holds of the agent's data. */
export const CONNECTION_LIMIT_BYTES = 64 * 1024 * 1024;
/** One instance's streams together, at most: a tenant filling it leaves the connection's rest to others. */
export const INSTANCE_LIMIT_BYTES = 24 * 1024 * 1024;
/** One instance's streams together, before only streams just starting may send: four full windows. */
export const INSTANCE_SHARE_BYTES = 16 * 1024 * 1024;
/** What a stream may have out past its instance's share: more than the MachineDO's credit batch (512 KiB). */
export const STREAM_START_BYTES = 1024 * 1024;

interface Spender {
  instanceId: string;
  bytes: number;
  /** The stream ended here: forgotten once the MachineDO has acknowledged the rest. */
  ended: boolean;
}

/**
 * A stream's transport, counted against the budget until the stream ended and, where the MachineDO
 * settles streams, until it has acknowledged the rest.
 */
export interface BudgetedTransport extends StreamTransport {
  release(): void;
}

export class SendBudget {
  readonly #transport: StreamTransport;
  readonly #streams = new Map<number, Spender>();
  readonly #perInstance = new Map<string, number>();
  #total = 0;
  #waiters: (() => void)[] = [];
  /** The MachineDO of this connection returns a stream's remaining credit when it is done with it. */
  #settled = false;

  constructor(transport: StreamTransport) {
    this.#transport = transport;
  }

  /** Unacknowledged bytes: on the whole connection, or of one instance's streams. */
  unacknowledged(instanceId?: string): number {
    return instanceId === undefined ? this.#total : (this.#perInstance.get(instanceId) ?? 0);
  }

  /** Whether the MachineDO now connected settles streams (its welcome says). */
  serverSettles(settles: boolean): void {
    this.#settled = settles;
  }

  /** The transport of stream `id`, which carries traffic of `instanceId`. */
  transportFor(id: number, instanceId: string): BudgetedTransport {
    // The MachineDO opening an id again is done with the stream it named before.
    this.drop(id);
    const spender: Spender = { instanceId, bytes: 0, ended: false };
    this.#streams.set(id, spender);
    const transport = this.#transport;
    return {
      send: (message) => transport.send(message),
      sendData: (kind, stream, payload) => {
        transport.sendData(kind, stream, payload);
        this.#change(spender, payload.byteLength);
      },
      congested: () => transport.congested() || this.#held(spender),
      whenUncongested: (callback) => {
        if (transport.congested()) transport.whenUncongested(callback);
        else this.#waiters.push(callback);
      },
      release: () => {
        spender.ended = true;
        if (!this.#settled || spender.bytes === 0) this.#forget(id, spender);
      },
    };
  }

  /** The MachineDO handed on `bytes` of stream `id`'s data (its `window` frame). */
  acknowledged(id: number, bytes: number): void {
    const spender = this.#streams.get(id);
    if (!spender) return;
    this.#change(spender, -Math.min(bytes, spender.bytes));
    if (spender.ended && spender.bytes === 0) this.#streams.delete(id);
  }

  /** The MachineDO ended stream `id` (or the connection is gone): it holds nothing of it any more. */
  drop(id: number): void {
    const spender = this.#streams.get(id);
    if (spender) this.#forget(id, spender);
  }

  /** The connection is gone: the next MachineDO holds nothing sent on this one. */
  dropAll(): void {
    for (const id of [...this.#streams.keys()]) this.drop(id);
  }

  #forget(id: number, spender: Spender): void {
    if (this.#streams.get(id) === spender) this.#streams.delete(id);
    this.#change(spender, -spender.bytes);
  }

  #held(spender: Spender): boolean {
    const instance = this.#perInstance.get(spender.instanceId) ?? 0;
    if (this.#total >= CONNECTION_LIMIT_BYTES || instance >= INSTANCE_LIMIT_BYTES) return true;
    return instance >= INSTANCE_SHARE_BYTES && spender.bytes >= STREAM_START_BYTES;
  }

  #change(spender: Spender, bytes: number): void {
    if (bytes === 0) return;
    spender.bytes += bytes;
    this.#total += bytes;
    const instance = (this.#perInstance.get(spender.instanceId) ?? 0) + bytes;
    if (instance > 0) this.#perInstance.set(spender.instanceId, instance);
    else this.#perInstance.delete(spender.instanceId);
    if (bytes < 0) this.#wake();
  }

  /**
   * Streams that waited go first, before the stream whose `window` freed the room sends again (its
   * frame is routed after `acknowledged`): else clients that read slowly, their windows refilled at
   * once, would keep a waiting stream of the same instance out for good. Each checks for itself and
   * waits again if there is still no room for it; room freed meanwhile (a stream ending) wakes those.
   */
  #wake(): void {
    for (const waiter of this.#waiters.splice(0)) waiter();
  }
}
