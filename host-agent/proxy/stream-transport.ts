// What a proxied stream needs from the agent's connection to the MachineDO.
import type { DataKind } from "../../protocol/mux/frames.ts";
import type { AgentMessage } from "../../protocol/messages.ts";

export interface StreamTransport {
  send(message: AgentMessage): void;
  /**
   * `headroom`: the payload's buffer has DATA_HEADER_BYTES of its own free just before it, where the
   * frame's header goes (frames.ts, frameInPlace): no copy of the payload to frame it.
   */
  sendData(kind: DataKind, stream: number, payload: Uint8Array, headroom?: boolean): void;
  /** A binary frame already whole (a small response, protocol/mux/response-frame.ts): no credit is spent on it. */
  sendFrame(frame: Uint8Array): void;
  /**
   * True while no more data may go: the socket's own send buffer is too full, or (a stream's
   * transport, send-budget.ts) its instance or the connection has its budget of unacknowledged bytes out.
   */
  congested(): boolean;
  /** Calls back once that may have changed: the sender checks again. */
  whenUncongested(callback: () => void): void;
}
