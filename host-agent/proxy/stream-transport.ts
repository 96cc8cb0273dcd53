// What a proxied stream needs from the agent's connection to the MachineDO.
import type { DataKind } from "../../protocol/mux/frames.ts";
import type { AgentMessage } from "../../protocol/messages.ts";

export interface StreamTransport {
  send(message: AgentMessage): void;
  sendData(kind: DataKind, stream: number, payload: Uint8Array): void;
  /** True while the socket's own send buffer is too full to add more data. */
  congested(): boolean;
  /** Calls back once the socket's send buffer has drained below the limit. */
  whenUncongested(callback: () => void): void;
}
