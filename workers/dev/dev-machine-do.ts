// The dev Worker's MachineDO: the production object, plus how many proxied and log streams it has open,
// which the bench's soak mode checks is 0 at its end (/bench/open-streams) and tests read, and how many
// bytes of binary WebSocket data (SSH's among them) its agent has sent it since the object started,
// which the SSH slow-reader test reads (/bench/agent-ws-bytes) to see what a stalled client let the
// agent send. Asked through
// fetch on a path of its own rather than by an RPC method: the generated Env types every MachineDO stub
// from the top level's entry (this Worker's), and a method here would type-check in production code.
import { MachineDO } from "../../durable-objects/machine/machine-do.ts";
import { machineOf, type Env } from "../../core/env.ts";
import { DATA_HEADER_BYTES, DataKind } from "../../protocol/mux/frames.ts";

const OPEN_STREAMS_PATH = "/dev/open-streams";
const AGENT_WS_BYTES_PATH = "/dev/agent-ws-bytes";

export class DevMachineDO extends MachineDO {
  #agentWsBytes = 0;

  override async fetch(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path === OPEN_STREAMS_PATH) return Response.json({ open_streams: this.bridge.openStreams });
    if (path === AGENT_WS_BYTES_PATH) return Response.json({ bytes: this.#agentWsBytes });
    return super.fetch(request);
  }

  /** Counts the payload of each binary WebSocket data frame from the agent, then handles the frame as production does. */
  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    if (typeof message !== "string" && message.byteLength > DATA_HEADER_BYTES && new Uint8Array(message, 0, 1)[0] === DataKind.wsBinary) {
      this.#agentWsBytes += message.byteLength - DATA_HEADER_BYTES;
    }
    return super.webSocketMessage(ws, message);
  }
}

/** Bytes of binary WebSocket data machine `machineId`'s agent has sent its object since the object started. */
export async function agentWsBytesOf(env: Env, machineId: number): Promise<number> {
  const response = await machineOf(env, machineId).fetch(`https://machine${AGENT_WS_BYTES_PATH}`);
  return ((await response.json()) as { bytes: number }).bytes;
}

/** How many streams machine `machineId`'s object has open, each a client being answered. */
export async function openStreamsOf(env: Env, machineId: number): Promise<number> {
  const response = await machineOf(env, machineId).fetch(`https://machine${OPEN_STREAMS_PATH}`);
  return ((await response.json()) as { open_streams: number }).open_streams;
}
