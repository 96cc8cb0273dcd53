// What the agent may have sent on its connection that the MachineDO has not yet handed on. The
// MachineDO holds what it was sent until the client takes it, one object carries every stream of
// every tenant on this host, and it has 128 MB: 32 downloads whose clients do not read would reset
// it and drop everybody's streams. So the agent's sends are counted against an unacknowledged budget
// (protocol/mux/unacknowledged-budget.ts: the limits, the share and who goes first); a stream over
// it waits as it does for a congested socket (StreamTransport.congested), and goes on as the
// MachineDO returns credit (`window`) or a stream ends.
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
import { UnacknowledgedBudget, type Spender } from "../../protocol/mux/unacknowledged-budget.ts";
import type { StreamTransport } from "./stream-transport.ts";

/** Everything unacknowledged on the connection: the most the MachineDO holds of the agent's data. */
export const CONNECTION_LIMIT_BYTES = 64 * 1024 * 1024;
/** One instance's streams together, at most: a tenant filling it leaves the connection's rest to others. */
export const INSTANCE_LIMIT_BYTES = 24 * 1024 * 1024;
/** One instance's streams together, before only streams just starting may send: four full windows. */
export const INSTANCE_SHARE_BYTES = 16 * 1024 * 1024;
/** What a stream may have out past its instance's share: more than the MachineDO's credit batch (512 KiB). */
export const STREAM_START_BYTES = 1024 * 1024;

interface SentStream {
  spender: Spender;
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
  readonly #budget = new UnacknowledgedBudget({
    connection: CONNECTION_LIMIT_BYTES, instance: INSTANCE_LIMIT_BYTES, instanceShare: INSTANCE_SHARE_BYTES, streamStart: STREAM_START_BYTES,
  });
  readonly #streams = new Map<number, SentStream>();
  /** The MachineDO of this connection returns a stream's remaining credit when it is done with it. */
  #settled = false;

  constructor(transport: StreamTransport) {
    this.#transport = transport;
  }

  /** Unacknowledged bytes: on the whole connection, or of one instance's streams. */
  unacknowledged(instanceId?: string): number {
    return this.#budget.unacknowledged(instanceId);
  }

  /** Whether the MachineDO now connected settles streams (its welcome says). */
  serverSettles(settles: boolean): void {
    this.#settled = settles;
  }

  /** The transport of stream `id`, which carries traffic of `instanceId`. */
  transportFor(id: number, instanceId: string): BudgetedTransport {
    // The MachineDO opening an id again is done with the stream it named before.
    this.drop(id);
    const sent: SentStream = { spender: this.#budget.spender(instanceId), ended: false };
    this.#streams.set(id, sent);
    const transport = this.#transport;
    return {
      send: (message) => transport.send(message),
      sendData: (kind, stream, payload, headroom) => {
        transport.sendData(kind, stream, payload, headroom);
        this.#budget.change(sent.spender, payload.byteLength);
      },
      sendFrame: (frame) => transport.sendFrame(frame),
      congested: () => transport.congested() || this.#budget.held(sent.spender),
      whenUncongested: (callback) => {
        if (transport.congested()) transport.whenUncongested(callback);
        else this.#budget.whenRoom(callback);
      },
      release: () => {
        sent.ended = true;
        if (!this.#settled || sent.spender.bytes === 0) this.#forget(id, sent);
      },
    };
  }

  /** The MachineDO handed on `bytes` of stream `id`'s data (its `window` frame). */
  acknowledged(id: number, bytes: number): void {
    const sent = this.#streams.get(id);
    if (!sent) return;
    this.#budget.change(sent.spender, -Math.min(bytes, sent.spender.bytes));
    if (sent.ended && sent.spender.bytes === 0) this.#streams.delete(id);
  }

  /** The MachineDO ended stream `id` (or the connection is gone): it holds nothing of it any more. */
  drop(id: number): void {
    const sent = this.#streams.get(id);
    if (sent) this.#forget(id, sent);
  }

  /** The connection is gone: the next MachineDO holds nothing sent on this one. */
  dropAll(): void {
    for (const id of [...this.#streams.keys()]) this.drop(id);
  }

  #forget(id: number, sent: SentStream): void {
    if (this.#streams.get(id) === sent) this.#streams.delete(id);
    this.#budget.change(sent.spender, -sent.spender.bytes);
  }
}
